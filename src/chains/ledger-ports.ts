import type { Db, Tx } from '../platform/database/database.js';
import type { ChainFamily } from './chain-network.js';

/**
 * What every chain family's watcher and payout tracker need from the ledger
 * (issuances, payouts), handed in by the composition root as functions:
 * `chains/` imports no business module (ARCHITECTURE "Boundaries": a module
 * that needs another's reaction receives it as a function). Family-neutral:
 * EVM today, Tron and Solana through the same two ports.
 */

/**
 * An incoming token transfer to a watched address, keyed by (chain, transaction
 * id, position): the log index on EVM and Tron; on Solana the instruction and
 * inner-instruction index in one integer (`chains/ingest/transfer-source.ts`).
 */
export interface ChainTransfer {
  readonly issuanceId: string;
  readonly chainId: number;
  readonly txHash: string;
  readonly logIndex: number;
  readonly fromAddress: string | null;
  readonly toAddress: string | null;
  readonly amount: bigint;
  readonly status: 'observed' | 'confirmed' | 'reverted';
}

/** A live issuance's payment address on one network. */
export interface WatchedAddress {
  readonly issuanceId: string;
  /** The family's comparison key of the address (`AddressCodec.normalise`; lower-case 0x on EVM). */
  readonly address: string;
  /** The token contract the issuance is for, normalised the same way. */
  readonly token: string;
  /** For incremental loading: rows are returned in (allocatedAt, issuanceId) order. */
  readonly allocatedAt: Date;
  /**
   * Still awaiting payment when read (registering or open, not cancelled):
   * what a payer may be paying right now. Settled, funded and cancelled
   * issuances stay watched for late transfers, with `open` false.
   */
  readonly open: boolean;
}

export interface TransferLedger {
  /**
   * `recordTransfers` of the issuances module, inside the caller's
   * transaction: the same as telling `recordTransfer` each transfer in order,
   * in a few statements (the ingest pipeline tells a batch per transaction).
   */
  recordTransfers(trx: Tx, now: Date, transfers: readonly ChainTransfer[]): Promise<void>;
  /** Live issuances of the family on `chainId` with an address, allocated after `after` (all when null), addresses normalised by the family's codec. */
  watchedAddresses(db: Db, family: ChainFamily, chainId: number, after: { readonly allocatedAt: Date; readonly issuanceId: string } | null): Promise<WatchedAddress[]>;
}

/**
 * What a chain's payout tracker tells the payout ledger about sweeps, each inside
 * the tracker's transaction (which also records the transaction row's new
 * status, so the two never disagree). Every call may come twice (two trackers
 * after a lease ran out, a retried transaction): a repeat must be a no-op.
 */
export interface SweepLedger {
  /** The payout's sweep `txHash` succeeded at the network's confirmation depth (payout.confirmed). */
  confirmPayout(trx: Tx, now: Date, payout: { readonly payoutId: string; readonly txHash: string }): Promise<void>;
  /**
   * A sweep reported confirmed vanished from the chain or moved to another
   * block (a reorg past the depth): payout.reverted, and the payout is redone.
   * The relayer redoes it with the SAME signed transaction (its nonce is free
   * again), so the next call for this payout is `confirmPayout` again.
   */
  revertPayout(trx: Tx, now: Date, payout: { readonly payoutId: string }): Promise<void>;
  /**
   * The internal `sweep.failed` signal: the attempt `txHash` reverted at depth
   * (status 0), or its nonce was used by another transaction. The payout goes
   * back to the send queue, and `sendPayout` may sign a new transaction with a
   * new nonce. Ignored when the payout has since moved on to another `txHash`.
   */
  sweepFailed(trx: Tx, now: Date, payout: { readonly payoutId: string; readonly txHash: string }): Promise<void>;
  /**
   * The network's fee payer now holds what the payouts in gas.wait needed:
   * they are due at once (not after the gas retry delay). Answers how many.
   */
  relayerFunded(trx: Tx, now: Date, network: { readonly chainId: number }): Promise<number>;
}
