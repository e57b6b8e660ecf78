import { sandboxAddress } from '../../src/chains/index.js';
import { listIssuanceEvents } from '../../src/events/index.js';
import { newId } from '../../src/platform/crypto.js';
import type { Role } from '../../src/platform/database/schema.js';
import { createSession, createUser } from '../support/factories.js';
import { authed, newIdempotencyKey, type TestApp } from '../support/app.js';

/** Networks of the bundled catalogue used by the issuance tests. Base has LEDGER's fee terms 50 / 0.1e18 / 5e18. */
export const BASE = 8453;
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const ARBITRUM = 42161;
export const ARBITRUM_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';
export const ARBITRUM_USDT = '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9';
export const BNB = 56;
export const BNB_USDT = '0x55d398326f99059fF775485246999027B3197955';
export const TRON = 728126428;
export const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** Listed but without status ready. */
/**
 * A sandbox shop needs a Tron recipient to issue on Tron (issue 23: tron_setup_required in the
 * sandbox too): any valid address will do, the sandbox moves no money.
 */
export async function giveTronRecipient(app: TestApp, shopId: string): Promise<void> {
  await app.context.db.updateTable('shops').set({ tron_recipient: sandboxAddress('tron', `recipient-${shopId}`) }).where('id', '=', shopId).execute();
}
export const TRON_USDC = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
export const SOLANA = 900;
export const SOLANA_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** USDC, 6 decimals: whole tokens → base-unit string. */
export const usdc = (tokens: number | string) => (BigInt(Math.round(Number(tokens) * 1_000_000))).toString();

export function post(app: TestApp, token: string, url: string, payload?: unknown, key = newIdempotencyKey()) {
  return app.request({ method: 'POST', url: `/api/v1${url}`, headers: authed(token, key), ...(payload === undefined ? {} : { payload: payload as object }) });
}

export function createInvoice(app: TestApp, token: string, shopId: string, payload: unknown, key?: string) {
  return post(app, token, `/shops/${shopId}/invoices`, payload, key);
}

export function createDeposit(app: TestApp, token: string, shopId: string, payload: unknown, key?: string) {
  return post(app, token, `/shops/${shopId}/deposits`, payload, key);
}

export function simulate(app: TestApp, token: string, shopId: string, payload: unknown, key?: string) {
  return post(app, token, `/shops/${shopId}/sandbox/simulate`, payload, key);
}

export function cancel(app: TestApp, token: string, shopId: string, id: string, key?: string) {
  return post(app, token, `/shops/${shopId}/invoices/${id}/cancel`, undefined, key);
}

export function setEnabled(app: TestApp, token: string, shopId: string, id: string, enabled: boolean, key = newIdempotencyKey()) {
  return app.request({ method: 'PATCH', url: `/api/v1/shops/${shopId}/deposits/${id}`, headers: authed(token, key), payload: { enabled } });
}

export async function read(app: TestApp, token: string, shopId: string, id: string) {
  const response = await app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/issuances/${id}`, headers: authed(token) });
  if (response.statusCode !== 200) throw new Error(`GET issuance: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** An open (allocated) sandbox invoice of `amount` base units on Base USDC. */
export async function openInvoice(app: TestApp, token: string, shopId: string, amount: string, extra: Record<string, unknown> = {}) {
  const created = await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount, ...extra });
  if (created.statusCode !== 202) throw new Error(`create invoice: ${created.statusCode} ${created.body}`);
  await app.jobs.drain();
  return read(app, token, shopId, created.json().id);
}

/** Simulates a confirmed transfer and answers the simulate response body. */
export async function pay(app: TestApp, token: string, shopId: string, issuanceId: string, amount: string) {
  // Transfers a second apart, so that rows ordered by time come back in payment order.
  app.clock.advance(1_000);
  const response = await simulate(app, token, shopId, { issuance_id: issuanceId, kind: 'transfer.confirmed', amount });
  if (response.statusCode !== 200) throw new Error(`simulate: ${response.statusCode} ${response.body}`);
  return response.json();
}

export interface Envelope {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export async function eventsOf(app: TestApp, issuanceId: string): Promise<Envelope[]> {
  return (await listIssuanceEvents(app.context.db, issuanceId)).map((event) => JSON.parse(event.envelope) as Envelope);
}

export async function payoutsOf(app: TestApp, issuanceId: string) {
  return app.context.db.selectFrom('payouts').selectAll().where('issuance_id', '=', issuanceId).orderBy('created_at').execute();
}

export async function transfersOf(app: TestApp, issuanceId: string) {
  return app.context.db.selectFrom('transfers').selectAll().where('issuance_id', '=', issuanceId).orderBy('created_at').orderBy('id').execute();
}

/** Rows of the issuance tables for a shop: for "nothing stored" checks. */
export async function storedCounts(app: TestApp, shopId: string) {
  const count = async (table: 'issuances' | 'issuance_groups' | 'transfers' | 'payouts') =>
    Number(
      (
        await app.context.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('shop_id', '=', shopId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const events = Number(
    (await app.context.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('shop_id', '=', shopId).executeTakeFirstOrThrow()).n,
  );
  return { issuances: await count('issuances'), groups: await count('issuance_groups'), transfers: await count('transfers'), payouts: await count('payouts'), events };
}

/** A signed-in user with a merchant-wide grant of `role`. */
export async function createGrantedSession(app: TestApp, merchantId: string, role: Role) {
  const user = await createUser(app.context.db);
  await app.context.db.insertInto('grants').values({ id: newId(), merchant_id: merchantId, user_id: user.id, role, shop_id: null }).execute();
  return createSession(app.context.db, user.id);
}

/**
 * An open ungrouped invoice as a row, for tests that write issuances directly
 * (bulk fixtures, live rows the sandbox cannot create): open, expiring a day after `now`.
 */
export function openInvoiceRow(owner: { readonly shopId: string; readonly merchantId: string }, publicId: string, now: Date, sandbox = true) {
  return {
    id: crypto.randomUUID(),
    public_id: publicId,
    shop_id: owner.shopId,
    merchant_id: owner.merchantId,
    kind: 'invoice' as const,
    sandbox,
    chain_id: BASE,
    family: 'evm' as const,
    token: BASE_USDC,
    token_decimals: 6,
    amount: usdc(10),
    status: 'open' as const,
    payout_target: 'address' as const,
    fee_bps: 50,
    fee_minimum: '0',
    fee_maximum: '0',
    expires_at: new Date(now.getTime() + 86_400_000),
    created_at: now,
    updated_at: now,
  };
}
