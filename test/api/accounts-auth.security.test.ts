import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../support/database.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createMerchant, createOwnerWithShop, createSession, createShop, createUser } from '../support/factories.js';
import { evmChainId, newWalletAccount, signInWithWallet } from '../support/wallet.js';

const CHALLENGE = '/api/v1/auth/wallet/challenge';
const VERIFY = '/api/v1/auth/wallet/verify';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function me(token: string, remoteAddress?: string) {
  return app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token), ...(remoteAddress === undefined ? {} : { remoteAddress }) });
}

describe('SPEC "Authentication" 5: wallet sign-in is for agents only', () => {
  it('answers 403 wallet_sign_in_agents_only to a challenge request carrying Origin, storing nothing', async () => {
    const before = await countRows(app.context.db, 'wallet_challenges');
    const response = await app.request({
      method: 'POST',
      url: CHALLENGE,
      headers: { origin: 'https://evil.example' },
      payload: { address: newWalletAccount().address, chain_id: evmChainId(app) },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { code: 'wallet_sign_in_agents_only', message: 'wallet_sign_in_agents_only' } });
    expect(await countRows(app.context.db, 'wallet_challenges')).toBe(before);
  });

  it('checks Origin before anything else: bad bodies, foreign content types, even an empty Origin', async () => {
    const cases = [
      { headers: { origin: 'http://ivory.test' }, payload: { address: 'nope' } },
      { headers: { origin: 'null', 'content-type': 'text/plain' }, payload: 'garbage' },
      { headers: { origin: '', 'content-type': 'application/json' }, payload: '{not json' },
    ];
    for (const { headers, payload } of cases) {
      for (const url of [CHALLENGE, VERIFY]) {
        const response = await app.request({ method: 'POST', url, headers, payload });
        expect(response.statusCode).toBe(403);
        expect(response.json().error.code).toBe('wallet_sign_in_agents_only');
      }
    }
  });

  it('answers 403 to a verify carrying Origin even with a valid signature, and leaves the challenge unused', async () => {
    const account = newWalletAccount();
    const challenge = await app.request({ method: 'POST', url: CHALLENGE, payload: { address: account.address, chain_id: evmChainId(app) } });
    const { challenge_id, message } = challenge.json<{ challenge_id: string; message: string }>();
    const signature = await account.signMessage({ message });
    const sessions = await countRows(app.context.db, 'sessions');

    const refused = await app.request({ method: 'POST', url: VERIFY, headers: { origin: 'https://app.example' }, payload: { challenge_id, signature } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('wallet_sign_in_agents_only');
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions);

    const agent = await app.request({ method: 'POST', url: VERIFY, payload: { challenge_id, signature } });
    expect(agent.statusCode).toBe(200);
    expect(agent.headers['set-cookie']).toBeUndefined();
  });
});

describe('SPEC "Sign-in" POST /auth/logout', () => {
  it('revokes the session: 200 {ok: true}, then the token gives 401', async () => {
    const { token } = await signInWithWallet(app);
    expect((await me(token)).statusCode).toBe(200);
    const logout = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(token) });
    expect(logout.statusCode).toBe(200);
    expect(logout.json()).toEqual({ ok: true });
    expect((await me(token)).statusCode).toBe(401);
    const again = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(token) });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.code).toBe('unauthorized');
  });

  it('revokes only that session', async () => {
    const account = newWalletAccount();
    const first = await signInWithWallet(app, account);
    const second = await signInWithWallet(app, account);
    await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(first.token) });
    expect((await me(first.token)).statusCode).toBe(401);
    expect((await me(second.token)).statusCode).toBe(200);
  });

  it('answers 401 without credentials and 403 forbidden to an API key (session only)', async () => {
    expect((await app.request({ method: 'POST', url: '/api/v1/auth/logout' })).statusCode).toBe(401);
    const { key } = await createOwnerWithShop(app.context.db);
    const keyed = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(key.token) });
    expect(keyed.statusCode).toBe(403);
    expect(keyed.json().error.code).toBe('forbidden');
  });
});

describe('SPEC "Authentication" 2 and "Errors" unauthorized: sessions', () => {
  it('answers 401 once a wallet session has expired (30 days), judged by the injected clock', async () => {
    const { token } = await signInWithWallet(app);
    app.clock.advance(30 * 24 * 60 * 60 * 1000 - 1000);
    expect((await me(token)).statusCode).toBe(200);
    app.clock.advance(1000);
    const expired = await me(token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('unauthorized');
  });

  it('answers 401 to an unknown token, a malformed header and no header', async () => {
    expect((await me('not-a-session')).statusCode).toBe(401);
    expect((await me('ivk_not-a-key')).statusCode).toBe(401);
    const basic = await app.request({ method: 'GET', url: '/api/v1/me', headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    expect(basic.statusCode).toBe(401);
    expect((await app.request({ method: 'GET', url: '/api/v1/me' })).statusCode).toBe(401);
  });

  it('SPEC "Authentication" 9: a blocked user gets 403 account_disabled with the reason in details', async () => {
    const user = await createUser(app.context.db, { blockedReason: 'fraud review' });
    const session = await createSession(app.context.db, user.id, { expiresAt: new Date(app.clock.now().getTime() + 3_600_000) });
    const response = await me(session.token);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: { code: 'account_disabled', message: 'account_disabled', details: { reason: 'fraud review' } },
    });
    const onboarding = await app.request({
      method: 'POST',
      url: '/api/v1/onboarding',
      headers: authed(session.token, newIdempotencyKey()),
      payload: { name: 'Blocked Inc', email: 'blocked@example.com' },
    });
    expect(onboarding.statusCode).toBe(403);
    expect(onboarding.json().error.code).toBe('account_disabled');
    expect(await countRows(app.context.db, 'idempotency_records')).toBe(0);
  });

  it('blocks a wallet user who is blocked after signing in', async () => {
    const { token, userId } = await signInWithWallet(app);
    await app.context.db.updateTable('users').set({ blocked_at: app.clock.now(), blocked_reason: 'chargebacks' }).where('id', '=', userId).execute();
    const response = await me(token);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.details).toEqual({ reason: 'chargebacks' });
  });
});

describe('SPEC "Authentication" 3: shop API keys', () => {
  async function keyedShop(options: Parameters<typeof createApiKey>[2] = {}) {
    const owner = await createUser(app.context.db);
    const merchant = await createMerchant(app.context.db, owner.id);
    const shop = await createShop(app.context.db, merchant.id);
    const key = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id }, options);
    return { merchant, shop, key };
  }

  it('resolves an enabled key', async () => {
    const { key } = await keyedShop();
    expect((await me(key.token)).statusCode).toBe(200);
  });

  it('answers 401 to a disabled key', async () => {
    const { key } = await keyedShop({ enabled: false });
    const response = await me(key.token);
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });

  it('answers 401 to a revoked key', async () => {
    const { key } = await keyedShop();
    await app.context.db.updateTable('api_keys').set({ revoked_at: app.clock.now() }).where('id', '=', key.id).execute();
    expect((await me(key.token)).statusCode).toBe(401);
  });

  it('answers 401 to a key of a blocked merchant or an archived shop', async () => {
    const blocked = await keyedShop();
    await app.context.db.updateTable('merchants').set({ blocked_at: app.clock.now(), blocked_reason: 'x' }).where('id', '=', blocked.merchant.id).execute();
    expect((await me(blocked.key.token)).statusCode).toBe(401);

    const archived = await keyedShop();
    await app.context.db.updateTable('shops').set({ archived_at: app.clock.now() }).where('id', '=', archived.shop.id).execute();
    expect((await me(archived.key.token)).statusCode).toBe(401);
  });

  it('answers 401 to a key token with one character changed', async () => {
    const { key } = await keyedShop();
    const last = key.token.slice(-1) === 'A' ? 'B' : 'A';
    expect((await me(key.token.slice(0, -1) + last)).statusCode).toBe(401);
  });

  it('IP allowlist: a single IPv4 address', async () => {
    const { key } = await keyedShop({ allowedIps: ['203.0.113.7'] });
    expect((await me(key.token, '203.0.113.7')).statusCode).toBe(200);
    const outside = await me(key.token, '203.0.113.8');
    expect(outside.statusCode).toBe(401);
    expect(outside.json().error.code).toBe('unauthorized');
  });

  it('IP allowlist: an IPv4 CIDR range', async () => {
    const { key } = await keyedShop({ allowedIps: ['198.51.100.0/24'] });
    expect((await me(key.token, '198.51.100.200')).statusCode).toBe(200);
    expect((await me(key.token, '198.51.100.0')).statusCode).toBe(200);
    expect((await me(key.token, '198.51.101.1')).statusCode).toBe(401);
  });

  it('IP allowlist: IPv6 addresses and ranges', async () => {
    const { key } = await keyedShop({ allowedIps: ['2001:db8::/32', '2a00:1450::1'] });
    expect((await me(key.token, '2001:db8:ffff::1')).statusCode).toBe(200);
    expect((await me(key.token, '2a00:1450:0:0::1')).statusCode).toBe(200);
    expect((await me(key.token, '2001:db9::1')).statusCode).toBe(401);
    expect((await me(key.token, '2a00:1450::2')).statusCode).toBe(401);
    expect((await me(key.token, '203.0.113.7')).statusCode).toBe(401);
  });

  it('IP allowlist: an IPv4-mapped IPv6 client address matches its IPv4 entry', async () => {
    const { key } = await keyedShop({ allowedIps: ['203.0.113.0/28'] });
    expect((await me(key.token, '::ffff:203.0.113.9')).statusCode).toBe(200);
    expect((await me(key.token, '::ffff:203.0.113.99')).statusCode).toBe(401);
  });

  it('IP allowlist: an IPv4 client never matches an unrelated IPv6 range, nor the reverse', async () => {
    const v6 = await keyedShop({ allowedIps: ['::/0'] });
    expect((await me(v6.key.token, '198.51.100.1')).statusCode).toBe(401);
    const v4 = await keyedShop({ allowedIps: ['0.0.0.0/0'] });
    expect((await me(v4.key.token, '2001:db8::1')).statusCode).toBe(401);
    expect((await me(v4.key.token, '198.51.100.1')).statusCode).toBe(200);
  });

  it('answers 403 forbidden to a key on a session-only endpoint (POST /onboarding), storing nothing', async () => {
    const { key } = await keyedShop();
    const merchants = await countRows(app.context.db, 'merchants');
    const response = await app.request({
      method: 'POST',
      url: '/api/v1/onboarding',
      headers: authed(key.token, newIdempotencyKey()),
      payload: { name: 'Key Corp', email: 'key@example.com' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { code: 'forbidden', message: 'forbidden' } });
    expect(await countRows(app.context.db, 'merchants')).toBe(merchants);
  });

  it('stamps last_used_at at most once a minute', async () => {
    const { key } = await keyedShop();
    const lastUsed = async () =>
      (await app.context.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at;
    expect(await lastUsed()).toBeNull();
    await me(key.token);
    const first = await lastUsed();
    expect(first?.getTime()).toBe(app.clock.now().getTime());
    app.clock.advance(59_000);
    await me(key.token);
    expect((await lastUsed())?.getTime()).toBe(first?.getTime());
    app.clock.advance(2_000);
    await me(key.token);
    expect((await lastUsed())?.getTime()).toBe(app.clock.now().getTime());
  });
});
