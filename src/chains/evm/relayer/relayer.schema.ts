import type { ColumnType, CreatedAt, NullableNumeric, NullableTimestamp, Numeric, Timestamp } from '../../../platform/database/schema.js';

/**
 * The Kysely view of the EVM tables (migration 202611230020_evm_relayer).
 * Repositories of `chains/evm/` reach them with `executor.withTables<EvmTables>()`
 * until these interfaces are joined into `platform/database/schema.ts`.
 */

export interface EvmRelayersTable {
  chain_id: number;
  address: string;
  sealed_key: string;
  /** int8, read as a decimal string. */
  next_nonce: Numeric;
  tracker_owner: string | null;
  tracker_lease_until: NullableTimestamp;
  /** Wei the relayer must hold for the payouts in gas.wait; null when none waits (migration 202611270020). */
  gas_needed_wei: NullableNumeric;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface EvmForwardersTable {
  issuance_id: string;
  chain_id: number;
  kind: 'invoice' | 'deposit';
  factory: string;
  address: string;
  terms_id: string;
  token: string;
  recipient: string;
  fee_wallet: string;
  delegate: string;
  amount: Numeric;
  fee_min: Numeric;
  fee_max: Numeric;
  fee_bps: number;
  created_at: Timestamp;
}

export type EvmPayoutTransactionStatus = 'pending' | 'mined' | 'confirmed' | 'failed' | 'replaced' | 'dropped';

export interface EvmPayoutTransactionsTable {
  id: string;
  /** The payout of a single sweep; null for a batch, whose payouts are its `evm_payout_members` (migration 202611300100). */
  payout_id: string | null;
  chain_id: number;
  relayer: string;
  nonce: Numeric;
  replacement: number;
  raw_transaction: string;
  tx_hash: string;
  gas_limit: Numeric;
  max_fee_per_gas: Numeric;
  max_priority_fee_per_gas: Numeric;
  status: EvmPayoutTransactionStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  broadcast_at: NullableTimestamp;
  mined_block_number: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  mined_block_hash: string | null;
  receipt_status: 'success' | 'reverted' | null;
  gas_used: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  effective_gas_price: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  confirmed_at: NullableTimestamp;
}

/** The payouts one attempt (a relayer nonce) sweeps, in the order of its call's `Terms[]` (migration 202611300100). */
export interface EvmPayoutMembersTable {
  chain_id: number;
  relayer: string;
  nonce: Numeric;
  payout_id: string;
  position: number;
}

/** A type alias, not an interface: `withTables` wants an index-signature-compatible record. */
export type EvmTables = {
  evm_relayers: EvmRelayersTable;
  evm_forwarders: EvmForwardersTable;
  evm_payout_transactions: EvmPayoutTransactionsTable;
  evm_payout_members: EvmPayoutMembersTable;
};
