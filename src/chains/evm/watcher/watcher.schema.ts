import type { Numeric, Timestamp } from '../../../platform/database/schema.js';

/**
 * The Kysely view of the watcher's tables (migrations/202611230010_evm_watcher.sql).
 * The repository extends the shared `Database` with these (`withTables`), so
 * `platform/database/schema.ts` need not know them; joining `EvmWatcherTables`
 * into its `Database` later changes nothing here.
 */
export type EvmTransferStatus = 'observed' | 'confirmed' | 'dropped' | 'reverted';
export type LedgerStatus = 'observed' | 'confirmed' | 'reverted';

/** int8 arrives as a decimal string (platform/database: money and int8 never pass through a JS number). */
type Int8 = Numeric;

export type EvmScanCursorsTable = {
  chain_id: Int8;
  next_block: Int8;
  head_block: Int8 | null;
  updated_at: Timestamp;
};

export type EvmBlockHashesTable = {
  chain_id: Int8;
  block_number: Int8;
  block_hash: string;
};

export type EvmTransfersTable = {
  chain_id: Int8;
  tx_hash: string;
  log_index: number;
  block_number: Int8;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  amount: Numeric;
  issuance_id: string;
  status: EvmTransferStatus;
  credited: boolean;
  ledger_status: LedgerStatus | null;
  ledger_due: boolean;
  observed_at: Timestamp;
  updated_at: Timestamp;
};

export type EvmWatcherTables = {
  evm_scan_cursors: EvmScanCursorsTable;
  evm_block_hashes: EvmBlockHashesTable;
  evm_transfers: EvmTransfersTable;
};
