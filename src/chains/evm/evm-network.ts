import type { Address } from 'viem';

/** One token the watcher scans for on an EVM network (from the catalogue). */
export interface EvmToken {
  readonly address: Address;
  readonly symbol: string;
  readonly decimals: number;
  /**
   * The catalogue's `minimum_sweep` in this token's base units: committed in
   * every deposit forwarder, below which nobody can sweep it (docs/decisions/0007).
   */
  readonly minimumSweep: bigint;
}

/**
 * A live EVM network as the catalogue file describes it (SPEC "Network" plus
 * the operator fields that never appear in an API answer: `rpc_url`,
 * `confirmations`, `fee_wallet` and tuning).
 */
export interface EvmNetwork {
  readonly chainId: number;
  readonly rpcUrl: string;
  /** Every endpoint of the network, `rpcUrl` first (catalogue `rpc_urls`); the watcher and relayer fail over among them. */
  readonly rpcUrls?: readonly string[];
  /** Blocks after the transfer's block before `transfer.confirmed`; 0 means at inclusion. */
  readonly confirmations: number;
  /** Deposit forwarder factory (`main_factory`). */
  readonly mainFactory: Address;
  /** Invoice forwarder factory (`invoice_factory`). */
  readonly invoiceFactory: Address;
  /** First block to scan (the factories' deployment block). */
  readonly startBlock: bigint;
  /** The operator's fee wallet, committed in every forwarder's terms. */
  readonly feeWallet: Address;
  readonly tokens: readonly EvmToken[];
  /** Watcher tuning. */
  readonly pollIntervalMs: number;
  readonly maxBlockRange: number;
  /** Scan only up to the `finalized` block tag instead of head − confirmations (networks with finality). */
  readonly useFinalizedTag: boolean;
  /**
   * The most sweeps of one factory sent together in one `sweepBatch`
   * transaction (catalogue `sweep_batch_max`; 1 sends each alone).
   * Default `DEFAULT_SWEEP_BATCH_MAX`.
   */
  readonly sweepBatchMax?: number;
}

/** Sweeps per batch unless the catalogue says otherwise (docs/decisions/0037: gas per sweep flattens out well before it). */
export const DEFAULT_SWEEP_BATCH_MAX = 10;
