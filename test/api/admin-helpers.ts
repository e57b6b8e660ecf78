import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';

export const ADMIN_TOKEN = 'operator-test-token-0123456789abcdef';

/** The real app with the operator API enabled. */
export function createAdminApp(): Promise<TestApp> {
  return createTestApp({ ADMIN_TOKEN });
}

/** A call to `{root_url}/admin/v1{path}` with the operator token (or `token`), from `remoteAddress`. */
export function admin(
  app: TestApp,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options: { payload?: unknown; token?: string | null; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  return app.request({
    method,
    url: `/admin/v1${path}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(options.payload === undefined ? {} : { payload: options.payload as object }),
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
  });
}

/** The stored standing of a merchant and the number of audit entries: what a refused call must leave alone. */
export async function operatorState(app: TestApp, merchantId: string) {
  const merchant = await app.context.db
    .selectFrom('merchants')
    .select(['blocked_at', 'blocked_reason', 'active_invoice_limit', 'deposit_address_limits', 'team_limit'])
    .where('id', '=', merchantId)
    .executeTakeFirst();
  const fees = await app.context.db.selectFrom('merchant_fee_terms').selectAll().where('merchant_id', '=', merchantId).execute();
  const audit = await app.context.db.selectFrom('admin_audit_entries').select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  return { merchant, fees, auditEntries: Number(audit.count) };
}

export function errorOf(response: LightMyRequestResponse): unknown {
  return response.json<{ error: unknown }>().error;
}
