// Types of scripts/compile-contracts.mjs, for the test that re-compiles in-process.
export interface CompiledArtifact {
  readonly contractName: string;
  readonly sourceName: string;
  readonly compiler: { readonly version: string; readonly settings: unknown };
  readonly sources: Readonly<Record<string, string>>;
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
  readonly deployedBytecode: `0x${string}`;
}

export interface CompiledFile {
  /** Relative to the repository root. */
  readonly path: string;
  readonly content: string;
}

export declare const ARTIFACTS_DIR: string;
export declare const ARTIFACTS_TS: string;
export declare const SETTINGS: { readonly optimizer: { enabled: boolean; runs: number }; readonly evmVersion: string };

export declare function compileContracts(root?: string): {
  version: string;
  artifacts: CompiledArtifact[];
  files: CompiledFile[];
};

export declare function writeArtifacts(root?: string): CompiledFile[];
