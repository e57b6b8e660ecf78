import { sql, type Expression, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { Database } from '../platform/database/schema.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { whereOpenInvoiceGroup, whereOpenSingleInvoice } from './open-invoices.repository.js';
import { countRows } from '../platform/database/count-rows.js';
import { sqlStateOf } from '../platform/database/retry.js';
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
 * merchant in sandbox or live, a group counting once: the exact count, which
 * the exclusive gate judges.
 */
function countActiveInvoices(eb: ExpressionBuilder<Database, never>, merchantId: string, sandbox: boolean, now: Date): RawBuilder<string> {
  const single = whereOpenSingleInvoice(eb.selectFrom('issuances').select((inner) => inner.fn.countAll<string>().as('count')))
    .where('merchant_id', '=', merchantId)
    .where('sandbox', '=', sandbox)
    .where('expires_at', '>', now);
  const grouped = whereOpenInvoiceGroup(eb.selectFrom('issuance_groups').select((inner) => inner.fn.countAll<string>().as('count')))
    .where('merchant_id', '=', merchantId)
    .where('sandbox', '=', sandbox)
    .where('expires_at', '>', now);
  return sql<string>`(${single}) + (${grouped})`;
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

/**
 * The merchant's active-invoice gate (sandbox and live apart), held until
 * commit once evaluated: `shared` lets creations run side by side,
 * `exclusive` waits for all of them and keeps new ones out. An expression over
 * the shop's columns, not a statement: the access read of the creation
 * evaluates it, so it costs no round trip of its own and is held before
 * anything is counted. The lock's key is said once, in SQL
 * (`ivory_take_invoice_gate`, migrations/202611260040), for this and for the
 * one-statement creation's `enterSharedInvoiceGate`.
 */
export function invoiceLimitGateLock(merchantId: Expression<string>, sandbox: Expression<boolean>, mode: 'shared' | 'exclusive'): RawBuilder<unknown> {
  return sql`ivory_take_invoice_gate(${merchantId}, ${sandbox}, ${sql.lit(mode === 'exclusive')})`;
}

/**
 * The shared gate entered inside one statement (the one-statement invoice
 * creation, decision 0019): takes the lock, then reads the tallies with a
 * snapshot of its own taken after it, and evaluates to the open count when
 * the shared gate admits one more invoice (`open + 1 + max_connections <=
 * limit`, as `InvoiceLimitGate.admit` judges). Nearer the limit it raises
 * `IV002`, which aborts the statement: the exclusive gate must decide.
 */
export function enterSharedInvoiceGate(merchantId: Expression<string>, sandbox: boolean, limit: number): RawBuilder<string> {
  return sql<string>`ivory_enter_shared_invoice_gate(${merchantId}, ${sandbox}, ${limit})`;
}

/** The error of `enterSharedInvoiceGate` near the limit. */
export function isNearInvoiceLimit(error: unknown): boolean {
  return sqlStateOf(error) === 'IV002';
}

export interface InvoiceLimitState {
  readonly limit_override: number | null;
  readonly blocked_reason: string | null;
  /** Open invoices the statement's snapshot shows (the creation's own is not among them). */
  readonly open: string | number | null;
  readonly max_connections: string;
}

/**
 * What the gate judges, as a SELECT to run in the same statement that stores
 * the creation's invoice (its snapshot follows the gate, taken earlier in the
 * transaction). Under the shared gate, the open-invoice tallies (kept by
 * triggers, never below the exact count: expiry is only subtracted once the
 * expiry job cancels); under the exclusive gate, the exact count of active invoices.
 */
export function selectInvoiceLimitState(executor: Executor, merchantId: string, sandbox: boolean, now: Date, mode: 'shared' | 'exclusive') {
  return executor.selectNoFrom((eb) => [
    eb.selectFrom('merchants').select('active_invoice_limit').where('id', '=', merchantId).as('limit_override'),
    eb.selectFrom('merchants').select('blocked_reason').where('id', '=', merchantId).as('blocked_reason'),
    sql<string>`current_setting('max_connections')`.as('max_connections'),
    mode === 'shared'
      ? eb
          .selectFrom('open_invoice_tallies')
          .select((inner) => inner.fn.sum<string>('open').as('open'))
          .where('merchant_id', '=', merchantId)
          .where('sandbox', '=', sandbox)
          .as('open')
      : countActiveInvoices(eb, merchantId, sandbox, now).as('open'),
  ]);
}
