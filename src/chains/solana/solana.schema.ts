import type { ColumnType, CreatedAt, NullableNumeric, NullableTimestamp, Timestamp, UpdatedAt } from '../../platform/database/schema.js';

/** The Kysely view of the Solana tables (migration 202611290400_solana), reached with `withTables<SolanaTables>()`. */

type Int8 = ColumnType<string, string | bigint, string | bigint>;
type NullableInt8 = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;

export interface SolanaRelayersTable {
  chain_id: number;
  /** base58. */
  address: string;
  sealed_key: string;
  lamports_needed: NullableNumeric;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface SolanaDepositSeedsTable {
  id: number;
  sealed_seed: string;
  created_at: CreatedAt;
}

export interface SolanaDepositAddressesTable {
  issuance_id: string;
  chain_id: number;
  derivation_index: number;
  owner_address: string;
  token_account: string;
  mint: string;
  token_program: string;
  kind: 'invoice' | 'deposit';
  rent_reclaimed_at: NullableTimestamp;
  /** Solana Pay reference (base58, 32 random bytes; migration 202611300300); null before it. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 202611300400: the token account's last creation sent, while the account is not confirmed. */
  creation_signature: string | null;
  creation_last_valid_block_height: NullableInt8;
  created_at: CreatedAt;
}

export type SolanaPayoutTransactionStatus = 'signed' | 'landed' | 'confirmed' | 'failed' | 'expired';

export interface SolanaPayoutTransactionsTable {
  id: string;
  payout_id: string;
  issuance_id: string;
  chain_id: number;
  signature: string;
  wire_base64: string;
  last_valid_block_height: Int8;
  status: SolanaPayoutTransactionStatus;
  slot: NullableInt8;
  fee_lamports: NullableInt8;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  broadcast_at: NullableTimestamp;
}

/** Migration 202611300400: the finalized slot up to which the watcher's last complete pass read. */
export interface SolanaWatchProgressTable {
  chain_id: number;
  scanned_finalized_slot: Int8;
  updated_at: Timestamp;
}

export type SolanaTables = {
  solana_relayers: SolanaRelayersTable;
  solana_deposit_seeds: SolanaDepositSeedsTable;
  solana_deposit_addresses: SolanaDepositAddressesTable;
  solana_payout_transactions: SolanaPayoutTransactionsTable;
  solana_watch_progress: SolanaWatchProgressTable;
};
