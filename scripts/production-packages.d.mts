// Types of scripts/production-packages.mjs, for the tests of licences and engines.
export declare const LICENCES_FILE: string;

export interface ReviewedLicence {
  readonly name: string;
  readonly licence: string;
  readonly reason: string;
}
export declare const REVIEWED_LICENCES: readonly ReviewedLicence[];

export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  /** The declared licence as one expression; null when the manifest declares none. */
  readonly licence: string | null;
  /** `engines.node`, when declared. */
  readonly engines: string | null;
  /** A build for some operating systems or CPUs only (its manifest has `os` or `cpu`). */
  readonly platform: boolean;
}

export type LicenceClass = 'permissive' | 'weak-copyleft' | 'copyleft' | 'unknown';

export interface LicenceRow {
  readonly name: string;
  readonly version: string;
  readonly licence: string | null;
}

export declare function productionPackages(root: string): InstalledPackage[];
export declare function licenceOf(manifest: Record<string, unknown>): string | null;
export declare function classifyLicence(expression: string | null): LicenceClass;
export declare function listedName(entry: InstalledPackage): string;
export declare function licenceRows(packages: readonly InstalledPackage[]): LicenceRow[];
export declare function licenceProblems(
  packages: readonly InstalledPackage[],
  reviewed?: readonly ReviewedLicence[],
): (LicenceRow & { readonly class: LicenceClass })[];
export declare function engineConflicts(
  packages: readonly InstalledPackage[],
  nodeRange: string,
): { readonly name: string; readonly version: string; readonly engines: string }[];
export declare function licencesDocument(packages: readonly InstalledPackage[], reviewed?: readonly ReviewedLicence[]): string;
