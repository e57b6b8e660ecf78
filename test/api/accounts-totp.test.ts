import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createSession, createUser } from '../support/factories.js';
import { signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 4; SPEC "Sign-in" POST /auth/totp/enroll, /auth/totp/verify,
// /auth/recovery, /auth/confirm; "Profile" security summary; "Principal and
// session" user.mfa_required and mfa_at; "Authentication" 6 (MFA before
// business calls, wallet sessions too; fresh confirmation for sensitive
// changes); "Errors" mfa_required. Decision 0012.

const API = '/api/v1';
const STEP_MS = 30_000;

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

type Response = { statusCode: number; json: () => unknown; body: string };

function expectError(response: Response, status: number, code: string) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

function post(url: string, token: string, payload?: Record<string, unknown>, idempotent = false) {
  return app.request({
    method: 'POST',
    url: `${API}${url}`,
    headers: authed(token, idempotent ? newIdempotencyKey() : undefined),
    ...(payload === undefined ? {} : { payload }),
  });
}

function get(url: string, token: string) {
  return app.request({ method: 'GET', url: `${API}${url}`, headers: authed(token) });
}

/** The code an authenticator app shows at the app's current time, `steps` periods away. */
async function codeOf(secret: string, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor((app.clock.now().getTime() + steps * STEP_MS) / 1000) });
}

/** A six-digit code that is none of the codes of the ±1 window. */
async function wrongCode(secret: string): Promise<string> {
  const window = await Promise.all([-1, 0, 1].map((steps) => codeOf(secret, steps)));
  for (let candidate = 0; ; candidate += 1) {
    const code = String(candidate).padStart(6, '0');
    if (!window.includes(code)) return code;
  }
}

async function factorRow(userId: string) {
  return app.context.db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

async function sessionRow(sessionId: string) {
  return app.context.db.selectFrom('sessions').select(['mfa_at', 'mfa_failures', 'revoked_at']).where('id', '=', sessionId).executeTakeFirstOrThrow();
}

async function recoveryRows(userId: string) {
  return app.context.db.selectFrom('recovery_codes').select(['code_digest', 'used_at']).where('user_id', '=', userId).orderBy('id').execute();
}

async function startEnrollment(token: string): Promise<string> {
  const response = await post('/auth/totp/enroll', token);
  expect(response.statusCode).toBe(200);
  const uri = new URL(response.json<{ uri: string }>().uri);
  const secret = uri.searchParams.get('secret');
  if (secret === null) throw new Error('no secret in the setup URI');
  return secret;
}

/** An owner with a shop whose TOTP is confirmed in `session`; the clock then moves one step on. */
async function ownerWithTotp() {
  const owner = await createOwnerWithShop(app.context.db);
  const secret = await startEnrollment(owner.session.token);
  const confirmed = await post('/auth/totp/verify', owner.session.token, { code: await codeOf(secret), enroll: true });
  expect(confirmed.statusCode).toBe(200);
  const recoveryCodes = confirmed.json<{ recovery_codes: string[] }>().recovery_codes;
  app.clock.advance(STEP_MS);
  return { ...owner, secret, recoveryCodes };
}

describe('SPEC "Sign-in" POST /auth/totp/enroll and verify {enroll: true}', () => {
  it('enroll answers an otpauth://totp/ URI with issuer = BRAND; the secret is stored sealed and pending', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await post('/auth/totp/enroll', owner.session.token);
    expect(response.statusCode).toBe(200);
    const uri = new URL(response.json<{ uri: string }>().uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('issuer')).toBe('Ivory');
    const secret = uri.searchParams.get('secret') ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    const row = await factorRow(owner.user.id);
    expect(row?.confirmed_at).toBeNull();
    expect(row?.secret_sealed).toBeNull();
    expect(row?.pending_secret_sealed).toMatch(/^v1\./);
    expect(row?.pending_secret_sealed).not.toContain(secret);
    // Pending is not enrolled: nothing is required yet.
    expect((await get('/profile/security', owner.session.token)).json()).toEqual({ totp: false, passkeys: [] });
    expect((await get('/merchants', (await createSession(app.context.db, owner.user.id)).token)).statusCode).toBe(200);
  });

  it('verify {code, enroll: true} with the authenticator code confirms it and returns ten recovery codes once, stored as digests', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const secret = await startEnrollment(owner.session.token);
    const response = await post('/auth/totp/verify', owner.session.token, { code: await codeOf(secret), enroll: true });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ user: unknown; recovery_codes: string[] }>();
    expect(body.user).toEqual({
      user_id: owner.user.id,
      onboarding_required: false,
      mfa_required: false,
      mfa_at: app.clock.now().toISOString(),
    });
    expect(body.recovery_codes).toHaveLength(10);
    expect(new Set(body.recovery_codes).size).toBe(10);
    for (const code of body.recovery_codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const stored = await recoveryRows(owner.user.id);
    expect(stored).toHaveLength(10);
    for (const row of stored) {
      expect(row.used_at).toBeNull();
      for (const code of body.recovery_codes) expect(row.code_digest).not.toContain(code.replace('-', ''));
    }
    const factor = await factorRow(owner.user.id);
    expect(factor?.confirmed_at).not.toBeNull();
    expect(factor?.pending_secret_sealed).toBeNull();
    expect((await get('/profile/security', owner.session.token)).json()).toEqual({ totp: true, passkeys: [] });
    // The enrolling session has passed the factor.
    expect((await get('/merchants', owner.session.token)).statusCode).toBe(200);
    expect((await get('/me', owner.session.token)).json()).toMatchObject({ user: { mfa_required: false, mfa_at: app.clock.now().toISOString() } });
  });

  it('verify {enroll: true} with nothing pending is invalid_state; a wrong code confirms nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expectError(await post('/auth/totp/verify', owner.session.token, { code: '123456', enroll: true }), 400, 'invalid_state');
    expect(await factorRow(owner.user.id)).toBeUndefined();

    const secret = await startEnrollment(owner.session.token);
    expectError(await post('/auth/totp/verify', owner.session.token, { code: await wrongCode(secret), enroll: true }), 400, 'invalid_code');
    expect((await factorRow(owner.user.id))?.confirmed_at).toBeNull();
    expect(await recoveryRows(owner.user.id)).toEqual([]);
    expect((await sessionRow(owner.session.id)).mfa_at).toBeNull();
  });

  it('an API key or no credential cannot touch factors (SPEC "Authentication" 3, 4)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expectError(await post('/auth/totp/enroll', owner.key.token), 403, 'forbidden');
    expectError(await post('/auth/totp/verify', owner.key.token, { code: '123456' }), 403, 'forbidden');
    expectError(await post('/auth/recovery', owner.key.token, { code: 'abcde-fghij' }), 403, 'forbidden');
    expectError(await post('/auth/confirm', owner.key.token), 403, 'forbidden');
    expectError(await get('/profile/security', owner.key.token), 403, 'forbidden');
    expectError(await app.request({ method: 'POST', url: `${API}/auth/totp/enroll` }), 401, 'unauthorized');
    expect(await factorRow(owner.user.id)).toBeUndefined();
  });
});

describe('SPEC "Authentication" 6: a new session owes the second factor before business calls', () => {
  it('GET /me says mfa_required; business calls answer 403 mfa_required until POST /auth/totp/verify', async () => {
    const owner = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);

    expect((await get('/me', session.token)).json()).toMatchObject({ user: { user_id: owner.user.id, mfa_required: true, mfa_at: null } });
    expectError(await get('/merchants', session.token), 403, 'mfa_required');
    expectError(await get(`/shops/${owner.shop.id}`, session.token), 403, 'mfa_required');
    expectError(await get('/profile', session.token), 403, 'mfa_required');
    expectError(await post('/onboarding', session.token, { name: 'Acme' }, true), 403, 'mfa_required');
    // The ceremony stays reachable.
    expect((await get('/profile/security', session.token)).json()).toEqual({ totp: true, passkeys: [] });
    expect((await post('/auth/confirm', session.token)).json()).toEqual({ fresh: false, mfa_at: null, fresh_until: null });
    // An API key of the same merchant is not a session: no MFA.
    expect((await get('/merchants', owner.key.token)).statusCode).toBe(200);

    const verified = await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret) });
    expect(verified.statusCode).toBe(200);
    const now = app.clock.now().toISOString();
    expect(verified.json()).toEqual({ user: { user_id: owner.user.id, onboarding_required: false, mfa_required: false, mfa_at: now } });
    expect((await get('/merchants', session.token)).statusCode).toBe(200);
    expect((await get('/me', session.token)).json()).toMatchObject({ user: { mfa_required: false, mfa_at: now } });
    expect((await sessionRow(session.id)).mfa_at?.toISOString()).toBe(now);
  });

  it('wallet sessions are subject to it: the sign-in answer says mfa_required', async () => {
    const first = await signInWithWallet(app);
    const secret = await startEnrollment(first.token);
    expect((await post('/auth/totp/verify', first.token, { code: await codeOf(secret), enroll: true })).statusCode).toBe(200);
    app.clock.advance(STEP_MS);

    const again = await signInWithWallet(app, first.account);
    expect(again.userId).toBe(first.userId);
    expect((await get('/me', again.token)).json()).toMatchObject({ user: { mfa_required: true, mfa_at: null } });
    expectError(await get('/merchants', again.token), 403, 'mfa_required');
    expect((await post('/auth/totp/verify', again.token, { code: await codeOf(secret) })).statusCode).toBe(200);
    expect((await get('/merchants', again.token)).statusCode).toBe(200);
  });

  it('a code is accepted once per time step (no replay), also across sessions', async () => {
    const owner = await ownerWithTotp();
    const code = await codeOf(owner.secret);
    const first = await createSession(app.context.db, owner.user.id);
    expect((await post('/auth/totp/verify', first.token, { code })).statusCode).toBe(200);

    const second = await createSession(app.context.db, owner.user.id);
    expectError(await post('/auth/totp/verify', second.token, { code }), 400, 'invalid_code');
    expect(await sessionRow(second.id)).toMatchObject({ mfa_at: null, mfa_failures: 1, revoked_at: null });
    expectError(await get('/merchants', second.token), 403, 'mfa_required');

    // The previous step's code is older than the one used: refused too.
    expectError(await post('/auth/totp/verify', second.token, { code: await codeOf(owner.secret, -1) }), 400, 'invalid_code');
    // The next step's code is within the window and newer.
    expect((await post('/auth/totp/verify', second.token, { code: await codeOf(owner.secret, 1) })).statusCode).toBe(200);
  });

  it('accepts the previous step (±1 window) but not two steps away', async () => {
    const owner = await ownerWithTotp();
    app.clock.advance(3 * STEP_MS);
    const session = await createSession(app.context.db, owner.user.id);
    expectError(await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret, -2) }), 400, 'invalid_code');
    expectError(await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret, 2) }), 400, 'invalid_code');
    expect((await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret, -1) })).statusCode).toBe(200);
    expect((await factorRow(owner.user.id))?.last_used_step).toBe(String(Math.floor(app.clock.now().getTime() / STEP_MS) - 1));
  });

  it('wrong, malformed and missing codes are invalid_code; extra fields invalid_json; nothing is passed', async () => {
    const owner = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);
    const factorBefore = await factorRow(owner.user.id);
    expectError(await post('/auth/totp/verify', session.token, { code: await wrongCode(owner.secret) }), 400, 'invalid_code');
    expectError(await post('/auth/totp/verify', session.token, { code: 'abcdef' }), 400, 'invalid_code');
    expectError(await post('/auth/totp/verify', session.token, { code: 123456 }), 400, 'invalid_code');
    expectError(await post('/auth/totp/verify', session.token, {}), 400, 'invalid_code');
    expectError(await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret), extra: 1 }), 400, 'invalid_json');
    expect(await factorRow(owner.user.id)).toEqual(factorBefore);
    // Two well-formed wrong codes were counted; schema refusals were not.
    expect(await sessionRow(session.id)).toMatchObject({ mfa_at: null, mfa_failures: 2, revoked_at: null });
  });

  it('a user without TOTP has nothing to verify or recover: invalid_state, nothing stored', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expectError(await post('/auth/totp/verify', owner.session.token, { code: '123456' }), 400, 'invalid_state');
    expectError(await post('/auth/recovery', owner.session.token, { code: 'abcde-fghij' }), 400, 'invalid_state');
    expect(await sessionRow(owner.session.id)).toMatchObject({ mfa_at: null, mfa_failures: 0 });
    // Nothing is required of it either.
    expect((await post('/auth/confirm', owner.session.token)).json()).toEqual({ fresh: true, mfa_at: null, fresh_until: null });
  });

  it('attempts are limited per session: the fifth wrong code revokes it (401), the right code then no longer helps', async () => {
    const owner = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);
    const wrong = await wrongCode(owner.secret);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expectError(await post('/auth/totp/verify', session.token, { code: wrong }), 400, 'invalid_code');
    }
    expectError(await post('/auth/totp/verify', session.token, { code: wrong }), 401, 'unauthorized');
    expect((await sessionRow(session.id)).revoked_at).not.toBeNull();
    expectError(await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret) }), 401, 'unauthorized');
    expect((await factorRow(owner.user.id))?.last_used_step).toBe(String(Math.floor(app.clock.now().getTime() / STEP_MS) - 1));
    // Another session of the user is not affected.
    const other = await createSession(app.context.db, owner.user.id);
    expect((await post('/auth/totp/verify', other.token, { code: await codeOf(owner.secret) })).statusCode).toBe(200);
  });

  it('wrong recovery codes count against the same limit', async () => {
    const owner = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      expectError(await post('/auth/totp/verify', session.token, { code: await wrongCode(owner.secret) }), 400, 'invalid_code');
      expectError(await post('/auth/recovery', session.token, { code: 'aaaaa-aaaaa' }), 400, 'invalid_code');
    }
    expectError(await post('/auth/recovery', session.token, { code: 'aaaaa-aaaaa' }), 401, 'unauthorized');
    expect((await recoveryRows(owner.user.id)).every((row) => row.used_at === null)).toBe(true);
  });
});

describe('SPEC "Sign-in" POST /auth/recovery', () => {
  it('a recovery code passes the factor in a session that has its primary one, once', async () => {
    const owner = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);
    const code = owner.recoveryCodes[3] ?? '';
    // Case, spaces and hyphens do not matter.
    const response = await post('/auth/recovery', session.token, { code: ` ${code.toUpperCase().replace('-', ' ')} ` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      user: { user_id: owner.user.id, onboarding_required: false, mfa_required: false, mfa_at: app.clock.now().toISOString() },
      recovery_codes_left: 9,
    });
    expect((await get('/merchants', session.token)).statusCode).toBe(200);
    expect((await recoveryRows(owner.user.id)).filter((row) => row.used_at !== null)).toHaveLength(1);

    const another = await createSession(app.context.db, owner.user.id);
    expectError(await post('/auth/recovery', another.token, { code }), 400, 'invalid_code');
    expect(await sessionRow(another.id)).toMatchObject({ mfa_at: null, mfa_failures: 1 });
    expectError(await get('/merchants', another.token), 403, 'mfa_required');
    expectError(await post('/auth/recovery', another.token, {}), 400, 'invalid_code');
    expectError(await post('/auth/recovery', another.token, { code: owner.recoveryCodes[4], extra: true }), 400, 'invalid_json');
    expect((await recoveryRows(owner.user.id)).filter((row) => row.used_at !== null)).toHaveLength(1);
  });

  it("another user's recovery code does not work", async () => {
    const owner = await ownerWithTotp();
    const stranger = await ownerWithTotp();
    const session = await createSession(app.context.db, owner.user.id);
    expectError(await post('/auth/recovery', session.token, { code: stranger.recoveryCodes[0] }), 400, 'invalid_code');
    expect((await recoveryRows(stranger.user.id)).every((row) => row.used_at === null)).toBe(true);
  });
});

describe('SPEC "Authentication" 6: sensitive changes need a fresh confirmation; POST /auth/confirm reports it', () => {
  it('keys, recipients and sandbox reset answer 403 mfa_required once the window has passed, and store nothing', async () => {
    const owner = await ownerWithTotp();
    const token = owner.session.token;
    app.clock.advance(9 * 60_000);
    const confirm = await post('/auth/confirm', token);
    const mfaAt = (await sessionRow(owner.session.id)).mfa_at;
    expect(confirm.json()).toEqual({
      fresh: true,
      mfa_at: mfaAt?.toISOString(),
      fresh_until: new Date((mfaAt?.getTime() ?? 0) + 10 * 60_000).toISOString(),
    });
    app.clock.advance(2 * 60_000);
    expect((await post('/auth/confirm', token)).json()).toMatchObject({ fresh: false });
    // Confirm reports only: still not fresh.
    expect((await post('/auth/confirm', token)).json()).toMatchObject({ fresh: false });

    const keysBefore = await app.context.db.selectFrom('api_keys').select('id').where('shop_id', '=', owner.shop.id).execute();
    const shopBefore = await app.context.db.selectFrom('shops').selectAll().where('id', '=', owner.shop.id).executeTakeFirstOrThrow();
    const calls = [
      () => post(`/shops/${owner.shop.id}/keys`, token, { name: 'ci', scopes: ['read'] }, true),
      () => app.request({ method: 'PATCH', url: `${API}/shops/${owner.shop.id}/keys/${owner.key.id}`, headers: authed(token, newIdempotencyKey()), payload: { enabled: false } }),
      () => app.request({ method: 'DELETE', url: `${API}/shops/${owner.shop.id}/keys/${owner.key.id}`, headers: authed(token, newIdempotencyKey()) }),
      () => app.request({ method: 'PATCH', url: `${API}/shops/${owner.shop.id}`, headers: authed(token, newIdempotencyKey()), payload: { recipient: '0x000000000000000000000000000000000000bEEF' } }),
      () => app.request({ method: 'PUT', url: `${API}/shops/${owner.shop.id}/tron-recipient`, headers: authed(token, newIdempotencyKey()), payload: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' } }),
      () => post(`/shops/${owner.shop.id}/sandbox/reset`, token, undefined, true),
      () => post('/auth/totp/enroll', token),
    ];
    for (const call of calls) expectError(await call(), 403, 'mfa_required');
    expect(await app.context.db.selectFrom('api_keys').select('id').where('shop_id', '=', owner.shop.id).execute()).toEqual(keysBefore);
    expect(await app.context.db.selectFrom('shops').selectAll().where('id', '=', owner.shop.id).executeTakeFirstOrThrow()).toEqual(shopBefore);
    expect((await factorRow(owner.user.id))?.pending_secret_sealed).toBeNull();
    expect(await app.context.db.selectFrom('idempotency_records').select('key').where('scope', 'like', `%${owner.user.id}%`).execute()).toEqual([]);
    // Ordinary business calls go on.
    expect((await get(`/shops/${owner.shop.id}/keys`, token)).statusCode).toBe(200);

    // A fresh TOTP code renews the window.
    expect((await post('/auth/totp/verify', token, { code: await codeOf(owner.secret) })).statusCode).toBe(200);
    expect((await post('/auth/confirm', token)).json()).toMatchObject({ fresh: true });
    expect((await post(`/shops/${owner.shop.id}/keys`, token, { name: 'ci', scopes: ['read'] }, true)).statusCode).toBe(201);
  });

  it('a user without a second factor makes sensitive changes without one', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expect((await post(`/shops/${owner.shop.id}/keys`, owner.session.token, { name: 'ci', scopes: ['read'] }, true)).statusCode).toBe(201);
  });

  it('re-enrolling (a factor change) needs a fresh session; the old secret works until the new one is confirmed', async () => {
    const owner = await ownerWithTotp();
    const oldCodes = await recoveryRows(owner.user.id);
    const newSecret = await startEnrollment(owner.session.token);
    expect(newSecret).not.toBe(owner.secret);
    expect((await factorRow(owner.user.id))?.confirmed_at).not.toBeNull();

    // Confirming a replacement also needs freshness.
    app.clock.advance(11 * 60_000);
    expectError(await post('/auth/totp/verify', owner.session.token, { code: await codeOf(newSecret), enroll: true }), 403, 'mfa_required');
    expect(await recoveryRows(owner.user.id)).toEqual(oldCodes);

    expect((await post('/auth/totp/verify', owner.session.token, { code: await codeOf(owner.secret) })).statusCode).toBe(200);
    const replaced = await post('/auth/totp/verify', owner.session.token, { code: await codeOf(newSecret), enroll: true });
    expect(replaced.statusCode).toBe(200);
    const newCodes = replaced.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(newCodes).toHaveLength(10);

    app.clock.advance(STEP_MS);
    const session = await createSession(app.context.db, owner.user.id);
    expectError(await post('/auth/totp/verify', session.token, { code: await codeOf(owner.secret) }), 400, 'invalid_code');
    expectError(await post('/auth/recovery', session.token, { code: owner.recoveryCodes[0] }), 400, 'invalid_code');
    expect((await post('/auth/recovery', session.token, { code: newCodes[0] })).statusCode).toBe(200);
  });
});

describe('unknown users are unaffected', () => {
  it('a user who never enrolled: /me says mfa_required false', async () => {
    const user = await createUser(app.context.db);
    const session = await createSession(app.context.db, user.id);
    expect((await get('/me', session.token)).json()).toMatchObject({ user: { mfa_required: false, mfa_at: null } });
  });
});
