import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireShopAccessForIssuance } from '../../src/merchants/index.js';
import type { Principal } from '../../src/platform/http/principal.js';
import { createIssuance } from '../../src/issuances/create-issuance.js';
import { InvoiceLimitGate } from '../../src/limits/enforce-limits.js';
import { newId } from '../../src/platform/crypto.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { IvoryError } from '../../src/platform/errors.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createMerchant, createOwnerWithShop, createSession, createShop, createUser } from '../support/factories.js';
import { newWalletAccount, signInWithWallet } from '../support/wallet.js';
import { admin, createAdminApp, errorOf, operatorState } from './admin-helpers.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, createDeposit, createInvoice, eventsOf, openInvoice, pay, usdc } from './issuances-helpers.js';

// Issue 10 item 7; SPEC "States and transitions" (merchant blocked by operator staff),
// "Authentication" 9 and "Errors" account_disabled: POST /admin/v1/merchants/{id}/block and /unblock.

let app: TestApp;
beforeAll(async () => {
  app = await createAdminApp();
});
afterAll(async () => {
  await app.close();
});

const block = (merchantId: string, reason: unknown = 'chargeback fraud') => admin(app, 'POST', `/merchants/${merchantId}/block`, { payload: { reason } });
const unblock = (merchantId: string) => admin(app, 'POST', `/merchants/${merchantId}/unblock`);
const readIssuance = (token: string, shopId: string, id: string) => app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/issuances/${id}`, headers: authed(token) });
const me = (token: string) => app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) });

async function issuanceRow(id: string) {
  return app.context.db.selectFrom('issuances').select(['cancelled_at', 'cancel_reason', 'disabled_at', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
}

describe('blocking a merchant: SPEC "States and transitions", merchant blocked by operator staff', () => {
  it('cancels unpaid invoices (invoice.cancelled, reason merchant_blocked), disables deposits, leaves paid invoices, in one answer', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const unpaid = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const paid = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    await pay(app, owner.key.token, owner.shop.id, paid.id, usdc(10));
    const group = (await createInvoice(app, owner.key.token, owner.shop.id, { assets: [{ chain_id: BASE, token: BASE_USDC }, { chain_id: ARBITRUM, token: ARBITRUM_USDC }], amount: '10' })).json();
    const deposit = (await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();

    const response = await block(owner.merchant.id, 'chargeback fraud');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: owner.merchant.id, blocked: true, blocked_reason: 'chargeback fraud', blocked_at: app.clock.now().toISOString() });

    expect((await eventsOf(app, unpaid.id)).filter((event) => event.type === 'invoice.cancelled').map((event) => event.data.reason)).toEqual(['merchant_blocked']);
    expect((await eventsOf(app, group.options[0].id)).filter((event) => event.type === 'invoice.cancelled').map((event) => event.data.reason)).toEqual(['merchant_blocked']);
    expect(await issuanceRow(unpaid.id)).toMatchObject({ cancel_reason: 'merchant_blocked', cancelled_at: expect.any(Date) });
    expect((await issuanceRow(deposit.id)).disabled_at).not.toBeNull();
    expect(await issuanceRow(paid.id)).toMatchObject({ cancelled_at: null, status: 'funded' });
    expect((await eventsOf(app, paid.id)).some((event) => event.type === 'invoice.cancelled')).toBe(false);
  });

  it("stops the merchant's API keys: 401 unauthorized (SPEC \"Errors\": the credential is no longer valid)", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await block(owner.merchant.id)).statusCode).toBe(200);
    const read = await readIssuance(owner.key.token, owner.shop.id, invoice.id);
    expect(read.statusCode).toBe(401);
    expect(read.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
    expect((await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) })).statusCode).toBe(401);
  });

  it("answers its people's sessions 403 account_disabled with details.reason (SPEC \"Authentication\" 9), on shop and account routes", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await block(owner.merchant.id, 'unpaid fees')).statusCode).toBe(200);
    const expected = { error: { code: 'account_disabled', message: 'account_disabled', details: { reason: 'unpaid fees' } } };
    const shopRead = await readIssuance(owner.session.token, owner.shop.id, invoice.id);
    expect(shopRead.statusCode).toBe(403);
    expect(shopRead.json()).toEqual(expected);
    const account = await me(owner.session.token);
    expect(account.statusCode).toBe(403);
    expect(account.json()).toEqual(expected);
    const merchants = await app.request({ method: 'GET', url: '/api/v1/merchants', headers: authed(owner.session.token) });
    expect(merchants.statusCode).toBe(403);
  });

  it('a person who also belongs to a merchant in good standing keeps the session; only the blocked merchant answers account_disabled', async () => {
    const user = await createUser(app.context.db);
    const session = await createSession(app.context.db, user.id);
    const blocked = await createMerchant(app.context.db, user.id, { name: 'Blocked' });
    const blockedShop = await createShop(app.context.db, blocked.id);
    const good = await createMerchant(app.context.db, user.id, { name: 'Good' });
    expect((await block(blocked.id, 'terms breach')).statusCode).toBe(200);

    expect((await me(session.token)).statusCode).toBe(200);
    const onGood = await app.request({ method: 'GET', url: `/api/v1/merchants/${good.id}/networks`, headers: authed(session.token) });
    expect(onGood.statusCode).toBe(200);
    const onBlocked = await app.request({ method: 'GET', url: `/api/v1/shops/${blockedShop.id}/terms`, headers: authed(session.token) });
    expect(onBlocked.statusCode).toBe(403);
    expect(errorOf(onBlocked)).toEqual({ code: 'account_disabled', message: 'account_disabled', details: { reason: 'terms breach' } });
  });

  it('still lets its people sign in with a wallet (SPEC "Authentication" 9: except wallet requests); the session is then refused', async () => {
    const account = newWalletAccount();
    const first = await signInWithWallet(app, account);
    const onboarding = await app.request({
      method: 'POST',
      url: '/api/v1/onboarding',
      headers: authed(first.token, newIdempotencyKey()),
      payload: { name: 'Agent Co', email: `agent-${newId()}@example.com` },
    });
    expect(onboarding.statusCode).toBe(201);
    const grant = await app.context.db.selectFrom('grants').select('merchant_id').where('user_id', '=', first.userId).executeTakeFirstOrThrow();
    expect((await block(grant.merchant_id, 'sanctions screening')).statusCode).toBe(200);

    const again = await signInWithWallet(app, account);
    expect(again.userId).toBe(first.userId);
    const refused = await me(again.token);
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'account_disabled', details: { reason: 'sanctions screening' } });
  });

  it('is idempotent: a repeat keeps blocked_at, closes nothing more, may correct the reason', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const first = (await block(owner.merchant.id, 'first reason')).json();
    app.clock.advance(60_000);
    const repeat = await block(owner.merchant.id, 'first reason');
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toEqual(first);
    const corrected = await block(owner.merchant.id, 'corrected reason');
    expect(corrected.json()).toMatchObject({ blocked_at: first.blocked_at, blocked_reason: 'corrected reason' });
    expect((await eventsOf(app, invoice.id)).filter((event) => event.type === 'invoice.cancelled')).toHaveLength(1);
    expect((await me(owner.session.token)).json()).toMatchObject({ error: { details: { reason: 'corrected reason' } } });
  });
});

describe('blocking while a creation is in flight', () => {
  it('a creation whose access read came before the block committed is refused account_disabled, storing nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const principal = { kind: 'api_key', keyId: owner.key.id, merchantId: owner.merchant.id, shopId: owner.shop.id, scopes: ['read', 'write'] } as const;
    // The access read has let the request through (in a transaction of its own here,
    // so that the block is not kept waiting by its lock); the block commits before the limits are read.
    const access = await inTransaction(app.context.db, (trx) => requireShopAccessForIssuance(trx, principal satisfies Principal, owner.shop.id));
    expect((await block(owner.merchant.id, 'mid-flight')).statusCode).toBe(200);
    for (const [kind, body] of [
      ['invoice', { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }],
      ['deposit', { chain_id: BASE, token: BASE_USDC }],
    ] as const) {
      const outcome = await inTransaction(app.context.db, (trx) =>
        createIssuance(
          trx,
          { now: app.clock.now(), catalogue: app.context.catalogue, adapters: app.context.chains, payUrl: 'http://ivory.test/pay', invoiceLimitGate: new InvoiceLimitGate('shared') },
          {
            access,
            kind,
            body,
            claimAnswer: () => ({
              scope: `test-${newId()}`,
              key: newId(),
              requestHash: 'hash',
              status: 202,
              contentType: 'application/json',
              bytes: Buffer.from('{}'),
              sealed: false,
            }),
          },
        ),
      ).catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(IvoryError);
      expect(outcome).toMatchObject({ code: 'account_disabled', details: { reason: 'mid-flight' } });
    }
    const stored = await app.context.db.selectFrom('issuances').select('id').where('merchant_id', '=', owner.merchant.id).execute();
    expect(stored).toEqual([]);
    expect(await app.context.db.selectFrom('idempotency_records').select('key').where('scope', 'like', 'test-%').execute()).toEqual([]);
  });
});

describe('blocking: bad input stores nothing', () => {
  it('refuses an empty, blank, over-long, multi-line, missing or non-string reason with 400 invalid_reason', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const before = await operatorState(app, owner.merchant.id);
    for (const payload of [{ reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }, { reason: 'a\u0000b' }, { reason: 'two\nlines' }, {}, { reason: 42 }, { reason: null }]) {
      const response = await admin(app, 'POST', `/merchants/${owner.merchant.id}/block`, { payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response)).toEqual({ code: 'invalid_reason', message: 'invalid_reason', details: { field: 'reason', reason: expect.any(String) } });
    }
    expect((await block(owner.merchant.id, 'x'.repeat(500))).statusCode).toBe(200);
    await unblock(owner.merchant.id);
    const after = await operatorState(app, owner.merchant.id);
    expect(after.merchant).toEqual(before.merchant);
    expect(after.auditEntries).toBe(before.auditEntries + 2);
    expect((await issuanceRow(invoice.id)).cancel_reason).toBe('merchant_blocked');
  });

  it('refuses unknown fields (invalid_json) and bodies that are not JSON (json_content_type_required)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const before = await operatorState(app, owner.merchant.id);
    const extra = await admin(app, 'POST', `/merchants/${owner.merchant.id}/block`, { payload: { reason: 'x', blocked_at: null } });
    expect(errorOf(extra)).toEqual({ code: 'invalid_json', message: 'invalid_json', details: { field: 'blocked_at', reason: 'unknown field' } });
    const text = await app.request({
      method: 'POST',
      url: `/admin/v1/merchants/${owner.merchant.id}/block`,
      headers: { authorization: 'Bearer operator-test-token-0123456789abcdef', 'content-type': 'text/plain' },
      payload: 'reason=x',
    });
    expect(text.statusCode).toBe(400);
    expect(errorOf(text)).toMatchObject({ code: 'json_content_type_required' });
    expect(await operatorState(app, owner.merchant.id)).toEqual(before);
  });

  it('answers 404 not_found in the SPEC envelope for an unknown or malformed merchant id', async () => {
    const before = await app.context.db.selectFrom('admin_audit_entries').selectAll().execute();
    for (const id of [newId(), 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      for (const response of [await block(id), await unblock(id), await admin(app, 'GET', `/merchants/${id}`)]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
      }
    }
    expect(await app.context.db.selectFrom('admin_audit_entries').selectAll().execute()).toEqual(before);
  });

  it('needs the operator token: 401 without or with a wrong one (a user session is not one), storing nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const before = await operatorState(app, owner.merchant.id);
    for (const token of [null, 'wrong-token', owner.session.token, owner.key.token]) {
      for (const response of [
        await admin(app, 'POST', `/merchants/${owner.merchant.id}/block`, { payload: { reason: 'x' }, token }),
        await admin(app, 'POST', `/merchants/${owner.merchant.id}/unblock`, { token }),
        await admin(app, 'GET', `/merchants/${owner.merchant.id}`, { token }),
        await admin(app, 'GET', '/audit', { token }),
      ]) {
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
      }
    }
    expect(await operatorState(app, owner.merchant.id)).toEqual(before);
  });

  it('does not exist without ADMIN_TOKEN: 404', async () => {
    const plain = await createTestApp();
    try {
      const owner = await createOwnerWithShop(plain.context.db);
      const response = await plain.request({ method: 'POST', url: `/admin/v1/merchants/${owner.merchant.id}/block`, payload: { reason: 'x' } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
      expect((await plain.context.db.selectFrom('merchants').select('blocked_at').where('id', '=', owner.merchant.id).executeTakeFirstOrThrow()).blocked_at).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

describe('unblocking restores access, not cancelled invoices', () => {
  it('keys and sessions work again; cancelled invoices stay cancelled and deposits disabled; repeats change nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const deposit = (await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();
    expect((await block(owner.merchant.id)).statusCode).toBe(200);

    const response = await unblock(owner.merchant.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: owner.merchant.id, blocked: false, blocked_at: null, blocked_reason: null });
    expect((await readIssuance(owner.key.token, owner.shop.id, invoice.id)).statusCode).toBe(200);
    expect((await readIssuance(owner.session.token, owner.shop.id, invoice.id)).statusCode).toBe(200);
    expect((await me(owner.session.token)).statusCode).toBe(200);
    expect(await issuanceRow(invoice.id)).toMatchObject({ cancel_reason: 'merchant_blocked', cancelled_at: expect.any(Date) });
    expect((await issuanceRow(deposit.id)).disabled_at).not.toBeNull();
    expect((await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) })).statusCode).toBe(202);

    const repeat = await unblock(owner.merchant.id);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toEqual(response.json());
  });
});
