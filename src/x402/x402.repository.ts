import { sql } from 'kysely';
import { units18, type FeeTerms } from '../money/index.js';
import type { Executor, Tx } from '../platform/database/database.js';
import type { ColumnType, Numeric, NullableNumeric, Timestamp } from '../platform/database/schema.js';

/**
 * SQL for x402 (docs/decisions/0035): reads an invoice by its public id (the `issuances` and
 * `transfers` tables, read only, as the checkout read model does) and owns
 * `x402_authorizations` (migration 202611290300).
 */

export type X402AuthorizationStatus = 'claimed' | 'sent' | 'settled' | 'failed';

interface X402AuthorizationsTable {
  id: string;
  chain_id: number;
  token: string;
  authorizer: string;
  nonce: string;
  issuance_id: string;
  value: Numeric;
  status: X402AuthorizationStatus;
  tx_hash: string | null;
  gas_used: NullableNumeric;
  error: string | null;
  created_at: Timestamp;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

/** A type alias, not an interface: `withTables` wants an index-signature-compatible record. */
type X402Tables = { x402_authorizations: X402AuthorizationsTable };

const x402 = (executor: Executor) => executor.withTables<X402Tables>();

/** What x402 needs of an issuance. */
export interface X402Invoice {
  readonly id: string;
  readonly publicId: string;
  readonly kind: 'invoice' | 'deposit';
  readonly sandbox: boolean;
  readonly inGroup: boolean;
  readonly chainId: number;
  readonly token: string;
  readonly tokenDecimals: number;
  /** Null for deposits. */
  readonly amount: bigint | null;
  /** SPEC `received`: confirmed funds. */
  readonly received: bigint;
  readonly status: 'registering' | 'open' | 'funded' | 'settled' | 'reconciling';
  readonly address: string | null;
  readonly cancelledAt: Date | null;
  readonly disabledAt: Date | null;
  readonly expiresAt: Date | null;
  /** The terms stamped on the issuance at creation. */
  readonly feeTerms: FeeTerms;
}

const INVOICE_COLUMNS = [
  'id',
  'public_id',
  'kind',
  'sandbox',
  'group_id',
  'chain_id',
  'token',
  'token_decimals',
  'amount',
  'received',
  'status',
  'address',
  'cancelled_at',
  'disabled_at',
  'expires_at',
  'fee_bps',
  'fee_minimum',
  'fee_maximum',
] as const;

type InvoiceRow = {
  id: string;
  public_id: string;
  kind: 'invoice' | 'deposit';
  sandbox: boolean;
  group_id: string | null;
  chain_id: number;
  token: string;
  token_decimals: number;
  amount: string | null;
  received: string;
  status: X402Invoice['status'];
  address: string | null;
  cancelled_at: Date | null;
  disabled_at: Date | null;
  expires_at: Date | null;
  fee_bps: number;
  fee_minimum: string;
  fee_maximum: string;
};

function toInvoice(row: InvoiceRow): X402Invoice {
  return {
    id: row.id,
    publicId: row.public_id,
    kind: row.kind,
    sandbox: row.sandbox,
    inGroup: row.group_id !== null,
    chainId: row.chain_id,
    token: row.token,
    tokenDecimals: row.token_decimals,
    amount: row.amount === null ? null : BigInt(row.amount),
    received: BigInt(row.received),
    status: row.status,
    address: row.address,
    cancelledAt: row.cancelled_at,
    disabledAt: row.disabled_at,
    expiresAt: row.expires_at,
    feeTerms: { bps: row.fee_bps, minimum: units18(BigInt(row.fee_minimum)), maximum: units18(BigInt(row.fee_maximum)) },
  };
}

/** An issuance (an invoice, a deposit or a group's option) by its public id; a group's own id is not one. */
export async function findInvoiceByPublicId(executor: Executor, publicId: string): Promise<X402Invoice | undefined> {
  const row = await executor.selectFrom('issuances').select(INVOICE_COLUMNS).where('public_id', '=', publicId).executeTakeFirst();
  return row === undefined ? undefined : toInvoice(row as InvoiceRow);
}

/** The same, by id, its row locked until the transaction ends: claims for one invoice take turns. */
export async function lockInvoice(trx: Tx, issuanceId: string): Promise<X402Invoice | undefined> {
  const row = await trx.selectFrom('issuances').select(INVOICE_COLUMNS).where('id', '=', issuanceId).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toInvoice(row as InvoiceRow);
}

/**
 * What x402 authorisations of the invoice may still bring that `received` does not count yet:
 * claimed or sent ones, and settled ones whose transaction is not among the invoice's confirmed
 * transfers. The amount owed is the invoice's amount less `received` less this, so that a
 * second payer is not asked for money already on its way.
 */
export async function inFlightValue(executor: Executor, issuanceId: string): Promise<bigint> {
  const row = await x402(executor)
    .selectFrom('x402_authorizations as a')
    .select(sql<string>`coalesce(sum(a.value), 0)::text`.as('total'))
    .where('a.issuance_id', '=', issuanceId)
    .where((where) =>
      where.or([
        where('a.status', 'in', ['claimed', 'sent']),
        where.and([
          where('a.status', '=', 'settled'),
          where.not(
            where.exists(
              where
                .selectFrom('transfers as t')
                .select('t.id')
                .where('t.issuance_id', '=', issuanceId)
                .where('t.status', '=', 'confirmed')
                .where(sql<boolean>`lower(${sql.ref('t.tx_hash')}) = lower(${sql.ref('a.tx_hash')})`),
            ),
          ),
        ]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return BigInt(row.total);
}

export interface NewClaim {
  readonly id: string;
  readonly chainId: number;
  readonly token: string;
  readonly authorizer: string;
  readonly nonce: string;
  readonly issuanceId: string;
  readonly value: bigint;
  readonly now: Date;
}

/** Claims the authorisation; false when the same (token, authorizer, nonce) was claimed before. */
export async function insertClaim(trx: Tx, claim: NewClaim): Promise<boolean> {
  const inserted = await x402(trx)
    .insertInto('x402_authorizations')
    .values({
      id: claim.id,
      chain_id: claim.chainId,
      token: claim.token,
      authorizer: claim.authorizer,
      nonce: claim.nonce,
      issuance_id: claim.issuanceId,
      value: claim.value,
      status: 'claimed',
      created_at: claim.now,
      updated_at: claim.now,
    })
    .onConflict((conflict) => conflict.columns(['chain_id', 'token', 'authorizer', 'nonce']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Gives a claim back when nothing was signed for it: the payer may present the authorisation again. */
export async function deleteUnsignedClaim(executor: Executor, id: string): Promise<void> {
  await x402(executor).deleteFrom('x402_authorizations').where('id', '=', id).where('status', '=', 'claimed').execute();
}

export async function markSent(executor: Executor, id: string, txHash: string, now: Date): Promise<void> {
  await x402(executor).updateTable('x402_authorizations').set({ status: 'sent', tx_hash: txHash, updated_at: now }).where('id', '=', id).execute();
}

export async function markOutcome(
  executor: Executor,
  id: string,
  outcome: { readonly status: 'settled' | 'failed'; readonly gasUsed: bigint | null; readonly error: string | null },
  now: Date,
): Promise<void> {
  await x402(executor)
    .updateTable('x402_authorizations')
    .set({ status: outcome.status, gas_used: outcome.gasUsed, error: outcome.error, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Whether `publicId` names an issuance group (whose options are offered on their own pages, not here). */
export async function isGroupPublicId(executor: Executor, publicId: string): Promise<boolean> {
  const row = await executor.selectFrom('issuance_groups').select('id').where('public_id', '=', publicId).executeTakeFirst();
  return row !== undefined;
}
