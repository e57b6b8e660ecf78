import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/database/database.js';
import type { SolanaTables } from './solana.schema.js';

/** SQL for the relayers, the deposit seed and the per-issuance deposit addresses (migration 202611290400). */

const solana = (executor: Executor) => executor.withTables<SolanaTables>();

export interface SolanaRelayerRow {
  readonly chainId: number;
  readonly address: string;
  readonly sealedKey: string;
}

export async function insertSolanaRelayerIfAbsent(executor: Executor, row: SolanaRelayerRow): Promise<void> {
  await solana(executor)
    .insertInto('solana_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, lamports_needed: null })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
}

export async function findSolanaRelayerRow(executor: Executor, chainId: number): Promise<SolanaRelayerRow | undefined> {
  const row = await solana(executor).selectFrom('solana_relayers').select(['chain_id', 'address', 'sealed_key']).where('chain_id', '=', chainId).executeTakeFirst();
  return row === undefined ? undefined : { chainId: Number(row.chain_id), address: row.address, sealedKey: row.sealed_key };
}

/** A send found the relayer short of `lamports` (gas.wait); the largest need is kept until covered. */
export async function noteLamportsNeeded(executor: Executor, chainId: number, lamports: bigint, now: Date): Promise<void> {
  await solana(executor)
    .updateTable('solana_relayers')
    .set({ lamports_needed: sql<string>`greatest(coalesce(lamports_needed, 0), ${lamports.toString()}::numeric)`, updated_at: now })
    .where('chain_id', '=', chainId)
    .execute();
}

export async function findLamportsNeeded(executor: Executor, chainId: number): Promise<{ readonly address: string; readonly lamports: bigint } | undefined> {
  const row = await solana(executor)
    .selectFrom('solana_relayers')
    .select(['address', 'lamports_needed'])
    .where('chain_id', '=', chainId)
    .where('lamports_needed', 'is not', null)
    .executeTakeFirst();
  return row === undefined || row.lamports_needed === null ? undefined : { address: row.address, lamports: BigInt(row.lamports_needed) };
}

/** Clears the need once `covered` lamports cover it; false when a larger need was noted meanwhile. */
export async function clearLamportsNeeded(trx: Tx, chainId: number, covered: bigint, now: Date): Promise<boolean> {
  const result = await solana(trx)
    .updateTable('solana_relayers')
    .set({ lamports_needed: null, updated_at: now })
    .where('chain_id', '=', chainId)
    .where('lamports_needed', '<=', covered.toString())
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertDepositSeedIfAbsent(executor: Executor, sealedSeed: string): Promise<void> {
  await solana(executor)
    .insertInto('solana_deposit_seeds')
    .values({ id: 1, sealed_seed: sealedSeed })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

export async function findSealedDepositSeed(executor: Executor): Promise<string | undefined> {
  const row = await solana(executor).selectFrom('solana_deposit_seeds').select('sealed_seed').where('id', '=', 1).executeTakeFirst();
  return row?.sealed_seed;
}

/** The next unused derivation index (a sequence: never handed out twice, gaps allowed). */
export async function nextDerivationIndex(executor: Executor): Promise<number> {
  const result = await sql<{ index: string }>`select nextval('solana_deposit_index_seq') as index`.execute(executor);
  const value = result.rows[0]?.index;
  if (value === undefined) throw new Error('solana_deposit_index_seq answered nothing');
  return Number(value);
}

export interface SolanaDepositAddress {
  readonly issuanceId: string;
  readonly chainId: number;
  readonly derivationIndex: number;
  readonly ownerAddress: string;
  readonly tokenAccount: string;
  readonly mint: string;
  readonly tokenProgram: string;
  readonly kind: 'invoice' | 'deposit';
  /** The Solana Pay reference of the issuance's transfer request; null for addresses allocated before there was one. */
  readonly reference: string | null;
  readonly createdAt: Date;
  /** The token account's creation last sent (allocation), if any. */
  readonly creation: { readonly signature: string; readonly lastValidBlockHeight: bigint } | undefined;
}

/** Records the issuance's deposit key; the first row for an issuance wins (a retried allocation reads it back). */
export async function insertDepositAddressIfAbsent(executor: Executor, row: Omit<SolanaDepositAddress, 'createdAt' | 'creation'>, now: Date): Promise<void> {
  await solana(executor)
    .insertInto('solana_deposit_addresses')
    .values({
      issuance_id: row.issuanceId,
      chain_id: row.chainId,
      derivation_index: row.derivationIndex,
      owner_address: row.ownerAddress,
      token_account: row.tokenAccount,
      mint: row.mint,
      token_program: row.tokenProgram,
      kind: row.kind,
      reference: row.reference,
      created_at: now,
    })
    .onConflict((conflict) => conflict.column('issuance_id').doNothing())
    .execute();
}

const ADDRESS_COLUMNS = [
  'issuance_id',
  'chain_id',
  'derivation_index',
  'owner_address',
  'token_account',
  'mint',
  'token_program',
  'kind',
  'reference',
  'created_at',
  'creation_signature',
  'creation_last_valid_block_height',
] as const;

type AddressRow = {
  issuance_id: string;
  chain_id: number;
  derivation_index: number;
  owner_address: string;
  token_account: string;
  mint: string;
  token_program: string;
  kind: 'invoice' | 'deposit';
  reference: string | null;
  created_at: Date;
  creation_signature: string | null;
  creation_last_valid_block_height: string | null;
};

const toDepositAddress = (row: AddressRow): SolanaDepositAddress => ({
  issuanceId: row.issuance_id,
  chainId: Number(row.chain_id),
  derivationIndex: row.derivation_index,
  ownerAddress: row.owner_address,
  tokenAccount: row.token_account,
  mint: row.mint,
  tokenProgram: row.token_program,
  kind: row.kind,
  reference: row.reference,
  createdAt: row.created_at,
  creation:
    row.creation_signature === null || row.creation_last_valid_block_height === null
      ? undefined
      : { signature: row.creation_signature, lastValidBlockHeight: BigInt(row.creation_last_valid_block_height) },
});

/** Notes the token account's creation just sent (or forgets it: `undefined`, after it failed on chain). */
export async function noteTokenAccountCreation(executor: Executor, issuanceId: string, creation: { readonly signature: string; readonly lastValidBlockHeight: bigint } | undefined): Promise<void> {
  await solana(executor)
    .updateTable('solana_deposit_addresses')
    .set({ creation_signature: creation?.signature ?? null, creation_last_valid_block_height: creation?.lastValidBlockHeight.toString() ?? null })
    .where('issuance_id', '=', issuanceId)
    .execute();
}

export async function findDepositAddress(executor: Executor, issuanceId: string): Promise<SolanaDepositAddress | undefined> {
  const row = await solana(executor).selectFrom('solana_deposit_addresses').select(ADDRESS_COLUMNS).where('issuance_id', '=', issuanceId).executeTakeFirst();
  return row === undefined ? undefined : toDepositAddress(row);
}

/** The Solana Pay reference of an issuance's transfer request: undefined without a Solana address, null when allocated before references. */
export async function findPaymentReference(executor: Executor, issuanceId: string): Promise<string | null | undefined> {
  const row = await solana(executor).selectFrom('solana_deposit_addresses').select('reference').where('issuance_id', '=', issuanceId).executeTakeFirst();
  return row?.reference;
}

/** The network's deposit addresses by their token account (what the watcher reads signatures of). */
export async function listDepositAddresses(executor: Executor, chainId: number, issuanceIds: readonly string[]): Promise<SolanaDepositAddress[]> {
  if (issuanceIds.length === 0) return [];
  const rows = await solana(executor).selectFrom('solana_deposit_addresses').select(ADDRESS_COLUMNS).where('chain_id', '=', chainId).where('issuance_id', 'in', issuanceIds).execute();
  return rows.map(toDepositAddress);
}

/** Whether `address` is an Ivory deposit address or deposit token account on any Solana network. */
export async function isDepositAddress(executor: Executor, address: string): Promise<boolean> {
  const row = await solana(executor)
    .selectFrom('solana_deposit_addresses')
    .select('issuance_id')
    .where((eb) => eb.or([eb('owner_address', '=', address), eb('token_account', '=', address)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findSolanaRelayerByAddress(executor: Executor, address: string): Promise<boolean> {
  const row = await solana(executor).selectFrom('solana_relayers').select('chain_id').where('address', '=', address).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Invoice addresses whose rent may come back: a sweep of theirs confirmed at
 * least `settledBefore`, and the rent not reclaimed yet. The caller checks the
 * account is empty at `finalized` before closing it.
 */
export async function listReclaimableAddresses(executor: Executor, chainId: number, settledBefore: Date, limit = 50): Promise<SolanaDepositAddress[]> {
  const rows = await solana(executor)
    .selectFrom('solana_deposit_addresses as address')
    .select(ADDRESS_COLUMNS.map((column) => `address.${column}` as const))
    .where('address.chain_id', '=', chainId)
    .where('address.kind', '=', 'invoice')
    .where('address.rent_reclaimed_at', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('solana_payout_transactions as sweep')
          .select('sweep.id')
          .whereRef('sweep.issuance_id', '=', 'address.issuance_id')
          .where('sweep.status', '=', 'confirmed')
          .where('sweep.updated_at', '<=', settledBefore),
      ),
    )
    .orderBy('address.created_at')
    .limit(limit)
    .execute();
  return rows.map(toDepositAddress);
}

export async function markRentReclaimed(executor: Executor, issuanceId: string, now: Date): Promise<void> {
  await solana(executor).updateTable('solana_deposit_addresses').set({ rent_reclaimed_at: now }).where('issuance_id', '=', issuanceId).execute();
}

/** Sets the network's relayer to an operator's key (`ivory relayer import --family solana`). */
export async function upsertSolanaRelayer(executor: Executor, row: SolanaRelayerRow, now: Date): Promise<void> {
  await solana(executor)
    .insertInto('solana_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, lamports_needed: null, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column('chain_id').doUpdateSet({ address: row.address, sealed_key: row.sealedKey, updated_at: now }))
    .execute();
}

/** Whether a sweep transaction of the network may still land (signed or landed, not yet finalized or expired). */
export async function hasSolanaPayoutsInFlight(executor: Executor, chainId: number): Promise<boolean> {
  const row = await solana(executor)
    .selectFrom('solana_payout_transactions')
    .select('id')
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['signed', 'landed'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
