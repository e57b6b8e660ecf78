import type { Db, Tx } from '../../platform/database/database.js';

/**
 * What the EVM watcher and relayer need from the ledger (issuances, payouts),
 * handed in by the composition root as functions: `chains/` imports no
 * business module (ARCHITECTURE "Boundaries": a module that needs another's
 * reaction receives it as a function).
 */

/** An incoming token transfer to a watched address, keyed by (chain, tx hash, log index). */
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
  /** Lower-case 0x address. */
  readonly address: string;
  /** Lower-case token contract the issuance is for. */
  readonly token: string;
  /** For incremental loading: rows are returned in (allocatedAt, issuanceId) order. */
  readonly allocatedAt: Date;
}

export interface TransferLedger {
  /** `recordTransfer` of the issuances module, inside the caller's transaction. */
  recordTransfer(trx: Tx, now: Date, transfer: ChainTransfer): Promise<void>;
  /** Live issuances on `chainId` with an address, allocated after `after` (all when null). */
  watchedAddresses(db: Db, chainId: number, after: { readonly allocatedAt: Date; readonly issuanceId: string } | null): Promise<WatchedAddress[]>;
}
