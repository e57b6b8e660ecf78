/**
 * What the chain side knows of a network: the families and the part of a
 * catalogue entry a driver runs on. Declared here, not in `catalogue/`, so
 * that the catalogue may ask the family drivers (address codecs, access
 * sections) without the two modules importing each other: the catalogue's
 * `Network` is a `ChainNetwork` with the public terms added.
 */

/** The blockchain families SPEC names. */
export type ChainFamily = 'evm' | 'tron' | 'solana';

/**
 * How Ivory reaches a live EVM network (catalogue file only, never in an API
 * answer: an RPC URL often carries a provider's key).
 */
export interface ChainAccess {
  readonly rpcUrl: string;
  /** Blocks after the transfer's block before transfer.confirmed; 0 means at inclusion. */
  readonly confirmations: number;
  /** The operator's fee wallet; when absent it is read from the factory. */
  readonly feeWallet: string | undefined;
  readonly pollIntervalMs: number;
  readonly maxBlockRange: number;
  readonly useFinalizedTag: boolean;
}

export interface ChainToken {
  /** Contract (EVM, Tron) or mint (Solana), in the family's display form. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

export interface ChainNetwork {
  readonly chainId: number;
  readonly name: string;
  readonly family: ChainFamily;
  readonly enabled: boolean;
  /** Empty until Ivory's factory contracts are deployed on the network. */
  readonly mainFactory: string;
  readonly invoiceFactory: string;
  readonly startBlock: number;
  readonly tokens: readonly ChainToken[];
  /** Decimal token amounts (SPEC "Shop terms"); a driver needs the minimum sweep. */
  readonly sweep: { readonly minimumSweep: string };
  /** Set when the network is live: how to reach it. */
  readonly chain: ChainAccess | undefined;
}
