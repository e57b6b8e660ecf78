// Types of scripts/compile-contracts.mjs, for the test that re-compiles in-process.
export interface CompiledArtifact {
  readonly contractName: string;
  readonly sourceName: string;
  readonly compiler: { readonly version: string; readonly settings: { readonly evmVersion: string } };
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
export declare const TVM_ARTIFACTS_DIR: string;
export declare const TVM_ARTIFACTS_JSON: string;
export declare const SETTINGS: { readonly optimizer: { enabled: boolean; runs: number }; readonly evmVersion: string };
export declare const TVM_SETTINGS: { readonly optimizer: { enabled: boolean; runs: number }; readonly evmVersion: string };

export declare function compileContracts(root?: string): {
  version: string;
  artifacts: CompiledArtifact[];
  /** The TVM build: the forwarder and factories for Tron (decision 0032). */
  tvmArtifacts: CompiledArtifact[];
  files: CompiledFile[];
};

export declare function writeArtifacts(root?: string): CompiledFile[];
