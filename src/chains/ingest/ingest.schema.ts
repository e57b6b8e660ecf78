import type { Numeric, Timestamp } from '../../platform/database/schema.js';

/**
 * The Kysely view of the ingest pipeline's tables (migrations/202611230010_evm_watcher.sql,
 * renamed family-neutral by 202611280010_chain_ingest.sql). The repositories extend the
 * shared `Database` with these (`withTables`), so `platform/database/schema.ts` need not
 * know them.
 */
export type InboxStatus = 'observed' | 'confirmed' | 'dropped' | 'reverted';
export type LedgerStatus = 'observed' | 'confirmed' | 'reverted';

/** int8 arrives as a decimal string (platform/database: money and int8 never pass through a JS number). */
type Int8 = Numeric;

export type ChainScanCursorsTable = {
  chain_id: Int8;
  /** '' for a whole-chain (block range) source; the address for a per-address source. */
  stream: string;
  next_block: Int8;
  head_block: Int8 | null;
  /** Per-address sources: the newest transaction id read (a Solana signature). */
  after_id: string | null;
  updated_at: Timestamp;
};

export type ChainTransfersTable = {
  chain_id: Int8;
  tx_id: string;
  position: number;
  block_number: Int8;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  amount: Numeric;
  issuance_id: string;
  status: InboxStatus;
  credited: boolean;
  ledger_status: LedgerStatus | null;
  ledger_due: boolean;
  observed_at: Timestamp;
  updated_at: Timestamp;
};

/** A rescan in progress (migration 202611280110); deleted when its range is done. */
export type ChainRescansTable = {
  chain_id: Int8;
  from_block: Int8;
  to_block: Int8;
  next_block: Int8;
  requested_at: Timestamp;
  updated_at: Timestamp;
};

export type IngestTables = {
  chain_scan_cursors: ChainScanCursorsTable;
  chain_transfers: ChainTransfersTable;
  chain_rescans: ChainRescansTable;
};
