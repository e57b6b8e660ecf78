import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { Database } from '../platform/database/schema.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { whereOpenInvoiceGroup, whereOpenSingleInvoice } from './open-invoices.repository.js';
import { countRows } from '../platform/database/count-rows.js';
import type { NetworkFamily } from '../catalogue/index.js';

/** SQL behind SPEC "Limits": the merchant's overrides (locked) and the active counts. */

/**
 * The merchant's limit overrides, with the merchant row locked: limit checks
 * are then race-free. FOR NO KEY UPDATE, not FOR UPDATE: the issuance rows a
 * creation has already inserted hold FOR KEY SHARE on the merchant (their
 * foreign key), which FOR UPDATE would wait on — two creations would deadlock.
 */
export async function lockMerchantLimits(
  trx: Tx,
  merchantId: string,
): Promise<{ activeInvoiceLimit: number | null; depositAddressLimits: Record<string, number> | null; blockedReason: string | null } | undefined> {
  const row = await trx
    .selectFrom('merchants')
    .select(['active_invoice_limit', 'deposit_address_limits', 'blocked_reason'])
    .where('id', '=', merchantId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { activeInvoiceLimit: row.active_invoice_limit, depositAddressLimits: row.deposit_address_limits, blockedReason: row.blocked_reason };
}

/**
 * SPEC "Limits": invoices active (not paid, cancelled or expired) for the
 * merchant in sandbox or live; a group counts once. Two scalar subqueries.
 */
function activeInvoiceCounts(eb: ExpressionBuilder<Database, never>, merchantId: string, sandbox: boolean, now: Date) {
  return [
    whereOpenSingleInvoice(eb.selectFrom('issuances').select((inner) => inner.fn.countAll<string>().as('count')))
      .where('merchant_id', '=', merchantId)
      .where('sandbox', '=', sandbox)
      .where('expires_at', '>', now)
      .as('single'),
    whereOpenInvoiceGroup(eb.selectFrom('issuance_groups').select((inner) => inner.fn.countAll<string>().as('count')))
      .where('merchant_id', '=', merchantId)
      .where('sandbox', '=', sandbox)
      .where('expires_at', '>', now)
      .as('grouped'),
  ] as const;
}

/** SPEC "Limits": deposit addresses not disabled, per merchant, family and mode. */
export async function countActiveDepositAddresses(
  executor: Executor,
  merchantId: string,
  sandbox: boolean,
  family: string,
): Promise<number> {
  return countRows(
    executor
      .selectFrom('issuances')
      .where('merchant_id', '=', merchantId)
      .where('sandbox', '=', sandbox)
      .where('family', '=', family as NetworkFamily)
      .where('kind', '=', 'deposit')
      .where('disabled_at', 'is', null),
  );
}

/** Advisory-lock class of the active-invoice limit gate (the other key is the merchant and mode). */
const INVOICE_LIMIT_GATE = 7_201_626;

/**
 * The merchant's active-invoice gate (sandbox and live apart), held until
 * commit once evaluated: `shared` lets creations run side by side,
 * `exclusive` waits for all of them and keeps new ones out. An expression, not
 * a statement: it is evaluated in the RETURNING of the insert it follows, so it
 * costs no round trip of its own. A hash collision between two merchants only
 * makes them wait for each other; it never lets a count be wrong.
 */
export function invoiceLimitGateLock(merchantId: string, sandbox: boolean, mode: 'shared' | 'exclusive'): RawBuilder<unknown> {
  const key = `${merchantId}:${sandbox ? 'sandbox' : 'live'}`;
  return mode === 'shared'
    ? sql`pg_advisory_xact_lock_shared(${INVOICE_LIMIT_GATE}, hashtext(${key}))`
    : sql`pg_advisory_xact_lock(${INVOICE_LIMIT_GATE}, hashtext(${key}))`;
}

/**
 * In one statement, taken after the gate: the merchant's limit override, its
 * active invoices (this transaction's own included) and the most transactions
 * the database can run at once.
 */
export async function readInvoiceLimitState(
  trx: Tx,
  merchantId: string,
  sandbox: boolean,
  now: Date,
): Promise<{ limitOverride: number | null; blockedReason: string | null; active: number; maxConcurrentTransactions: number }> {
  const row = await trx
    .selectNoFrom((eb) => [
      eb.selectFrom('merchants').select('active_invoice_limit').where('id', '=', merchantId).as('limit_override'),
      eb.selectFrom('merchants').select('blocked_reason').where('id', '=', merchantId).as('blocked_reason'),
      sql<string>`current_setting('max_connections')`.as('max_connections'),
      ...activeInvoiceCounts(eb, merchantId, sandbox, now),
    ])
    .executeTakeFirstOrThrow();
  return {
    limitOverride: row.limit_override,
    blockedReason: row.blocked_reason,
    active: Number(row.single ?? 0) + Number(row.grouped ?? 0),
    maxConcurrentTransactions: Number(row.max_connections),
  };
}
