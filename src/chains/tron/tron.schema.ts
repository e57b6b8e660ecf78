import type { ColumnType, CreatedAt, NullableNumeric, NullableTimestamp, Timestamp } from '../../platform/database/schema.js';

/** The Kysely view of the Tron tables (migration 202611290100_tron), reached with `withTables<TronTables>()`. */

export interface TronRelayersTable {
  chain_id: number;
  /** `T…`. */
  address: string;
  sealed_key: string;
  trx_needed_sun: NullableNumeric;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type TronPayoutTransactionStatus = 'signed' | 'landed' | 'confirmed' | 'failed' | 'expired';

type Int8 = ColumnType<string, string | bigint, string | bigint>;
type NullableInt8 = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;

export interface TronPayoutTransactionsTable {
  id: string;
  payout_id: string;
  chain_id: number;
  relayer: string;
  tx_id: string;
  raw_data_hex: string;
  signature: string;
  expiration: Int8;
  fee_limit: Int8;
  status: TronPayoutTransactionStatus;
  block_number: NullableInt8;
  receipt_result: string | null;
  energy_used: NullableInt8;
  fee_sun: NullableInt8;
  created_at: Timestamp;
  updated_at: Timestamp;
  broadcast_at: NullableTimestamp;
}

export type TronTables = {
  tron_relayers: TronRelayersTable;
  tron_payout_transactions: TronPayoutTransactionsTable;
};
