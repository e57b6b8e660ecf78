import type { Expression } from 'kysely';
import { units18, type Units18 } from '../money/index.js';
import type { Executor, Tx } from '../platform/database/database.js';
import type { MerchantPayoutSetup } from './service-wallets.repository.js';

/**
 * The operator's controls over one merchant (SPEC "Limits" overrides, the
 * block, fee terms per network): the SQL behind the admin module's use cases,
 * and behind issuance creation reading the fee terms.
 */

export interface MerchantControlsRow {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly blockedAt: Date | null;
  readonly blockedReason: string | null;
  readonly shopLimit: number;
  /** Null: SPEC's default applies. */
  readonly activeInvoiceLimit: number | null;
  /** Per family ({"evm": n, …}); a family absent: the default. */
  readonly depositAddressLimits: Readonly<Record<string, number>> | null;
  readonly teamLimit: number | null;
}

export type FeeKind = 'invoice' | 'deposit';

/** Fee terms of one merchant on one network and kind; amounts in 18-decimal units. */
export interface MerchantFeeTermsRow {
  readonly chainId: number;
  readonly kind: FeeKind;
  readonly bps: number;
  /** 18-decimal units, as the catalogue's fee bounds. */
  readonly minimum: Units18;
  readonly maximum: Units18;
  readonly updatedAt: Date;
}

/** `lock`: the row is held FOR UPDATE to commit (blocking and limit changes serialise per merchant). */
export async function findMerchantControls(db: Executor, merchantId: string, options: { lock?: boolean } = {}): Promise<MerchantControlsRow | undefined> {
  let query = db
    .selectFrom('merchants')
    .select(['id', 'name', 'created_at', 'blocked_at', 'blocked_reason', 'shop_limit', 'active_invoice_limit', 'deposit_address_limits', 'team_limit'])
    .where('id', '=', merchantId);
  if (options.lock === true) query = query.forUpdate();
  const [found] = (await query.execute()).map((row) => ({
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    blockedAt: row.blocked_at,
    blockedReason: row.blocked_reason,
    shopLimit: row.shop_limit,
    activeInvoiceLimit: row.active_invoice_limit,
    depositAddressLimits: row.deposit_address_limits,
    teamLimit: row.team_limit,
  }));
  return found;
}

/** Null lifts the block. */
export async function setMerchantBlock(trx: Tx, merchantId: string, block: { at: Date; reason: string } | null): Promise<void> {
  await trx
    .updateTable('merchants')
    .set({ blocked_at: block?.at ?? null, blocked_reason: block?.reason ?? null })
    .where('id', '=', merchantId)
    .execute();
}

export interface LimitOverrides {
  readonly activeInvoiceLimit: number | null;
  readonly depositAddressLimits: Readonly<Record<string, number>> | null;
  readonly teamLimit: number | null;
}

export async function setMerchantLimitOverrides(trx: Tx, merchantId: string, overrides: LimitOverrides): Promise<void> {
  await trx
    .updateTable('merchants')
    .set({
      active_invoice_limit: overrides.activeInvoiceLimit,
      deposit_address_limits: overrides.depositAddressLimits === null ? null : JSON.stringify(overrides.depositAddressLimits),
      team_limit: overrides.teamLimit,
    })
    .where('id', '=', merchantId)
    .execute();
}

/** The merchant's fee terms, by network then kind (invoice first). */
export async function listMerchantFeeTerms(db: Executor, merchantId: string): Promise<MerchantFeeTermsRow[]> {
  const rows = await selectFeeTerms(db, merchantId).select('updated_at').execute();
  return rows.map((row) => ({ ...feeTermsOf(row), updatedAt: row.updated_at }));
}

/** What issuance creation prices and pays with. */
export interface MerchantIssuanceTerms {
  readonly feeTerms: readonly Omit<MerchantFeeTermsRow, 'updatedAt'>[];
  readonly payoutSetup: MerchantPayoutSetup;
}

/** Amounts as text: inside JSON a numeric would become a float and lose digits. */
export function selectFeeTerms(db: Executor, merchantId: string | Expression<string>) {
  return db
    .selectFrom('merchant_fee_terms')
    .select((eb) => ['chain_id', 'kind', 'bps', eb.cast<string>('minimum', 'text').as('minimum'), eb.cast<string>('maximum', 'text').as('maximum')])
    .where('merchant_id', '=', merchantId)
    .orderBy('chain_id')
    .orderBy('kind', 'desc');
}

export function feeTermsOf(row: { chain_id: number; kind: FeeKind; bps: number; minimum: string; maximum: string }): Omit<MerchantFeeTermsRow, 'updatedAt'> {
  return { chainId: row.chain_id, kind: row.kind, bps: row.bps, minimum: units18(BigInt(row.minimum)), maximum: units18(BigInt(row.maximum)) };
}

export async function upsertMerchantFeeTerms(
  trx: Tx,
  merchantId: string,
  terms: { chainId: number; kind: FeeKind; bps: number; minimum: bigint; maximum: bigint },
  now: Date,
): Promise<void> {
  const values = { bps: terms.bps, minimum: terms.minimum, maximum: terms.maximum, updated_at: now };
  await trx
    .insertInto('merchant_fee_terms')
    .values({ merchant_id: merchantId, chain_id: terms.chainId, kind: terms.kind, ...values })
    .onConflict((conflict) => conflict.columns(['merchant_id', 'chain_id', 'kind']).doUpdateSet(values))
    .execute();
}

export async function deleteMerchantFeeTerms(trx: Tx, merchantId: string, chainId: number, kind: FeeKind): Promise<void> {
  await trx.deleteFrom('merchant_fee_terms').where('merchant_id', '=', merchantId).where('chain_id', '=', chainId).where('kind', '=', kind).execute();
}
