import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookieSettings } from '../../src/platform/http/session-cookie.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { latestCode, startMailCatcher, type MailCatcher } from '../support/mail-catcher.js';
import { evmChainId, newEmail, newWalletAccount } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 3; SPEC "Authentication" 2 (dashboard cookie sessions: writes
// need a matching Origin and X-CSRF-Token; bearer use needs no CSRF), 3 (an API
// key is a bearer credential, never a cookie), 5 (wallet sign-in sets no
// cookie); "Sign-in" POST /auth/logout; decision 0013.

const ORIGIN = 'https://dash.ivory.example';
const VERIFY = '/api/v1/auth/email/verify';
const PROFILE = '/api/v1/profile';

let catcher: MailCatcher;
let app: TestApp;
let localApp: TestApp;
beforeAll(async () => {
  catcher = await startMailCatcher();
  app = await createTestApp({ SMTP_URL: catcher.url, PUBLIC_URL: ORIGIN });
  localApp = await createTestApp({ SMTP_URL: catcher.url, PUBLIC_URL: 'http://localhost:8080', BRAND: 'Acme' });
});
afterAll(async () => {
  await app.close();
  await localApp.close();
  await catcher.close();
});

function expectError(response: { statusCode: number; json: () => unknown }, status: number, code: string) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

async function startChallenge(target: TestApp, email = newEmail()): Promise<{ challengeId: string; code: string }> {
  const started = await target.request({ method: 'POST', url: '/api/v1/auth/email/start', payload: { email } });
  expect(started.statusCode, started.body).toBe(200);
  await target.jobs.drain();
  const code = latestCode(catcher, email);
  if (code === undefined) throw new Error(`no code arrived for ${email}`);
  return { challengeId: started.json<{ challenge_id: string }>().challenge_id, code };
}

interface CookieSession {
  readonly token: string;
  readonly csrf: string;
  readonly expiresAt: string;
  readonly userId: string;
  /** The Set-Cookie header of the verify answer. */
  readonly setCookie: string;
  /** `name=value`, as a browser sends it back. */
  readonly cookie: string;
}

/** E-mail sign-in asking for the cookie, as the dashboard does. */
async function signInWithCookie(target: TestApp = app, headers: Record<string, string> = { origin: ORIGIN }): Promise<CookieSession> {
  const { challengeId, code } = await startChallenge(target);
  const response = await target.request({ method: 'POST', url: VERIFY, headers, payload: { challenge_id: challengeId, code, cookie: true } });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ token: string; csrf: string; expires_at: string; user: { user_id: string } }>();
  const setCookie = response.headers['set-cookie'];
  if (typeof setCookie !== 'string') throw new Error(`expected one Set-Cookie, got ${JSON.stringify(setCookie)}`);
  return {
    token: body.token,
    csrf: body.csrf,
    expiresAt: body.expires_at,
    userId: body.user.user_id,
    setCookie,
    cookie: setCookie.split(';')[0] ?? '',
  };
}

function cookieWrite(session: CookieSession, headers: Record<string, string>, payload: Record<string, unknown> = { display_name: 'Changed' }) {
  return app.request({ method: 'PATCH', url: PROFILE, headers: { cookie: session.cookie, ...headers }, payload });
}

async function displayName(userId: string): Promise<string> {
  const row = await app.context.db.selectFrom('users').select('display_name').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.display_name;
}

async function sessionRevoked(token: string): Promise<boolean> {
  const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) });
  return me.statusCode === 401;
}

describe('SPEC "Authentication" 2: e-mail verify with cookie: true sets the dashboard session cookie', () => {
  it('ivory_session carries the session token: HttpOnly, SameSite=Lax, Path=/, Secure on an https PUBLIC_URL, expiring with the session', async () => {
    const session = await signInWithCookie();
    expect(session.cookie).toBe(`ivory_session=${session.token}`);
    const attributes = session.setCookie.split('; ').slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Secure', `Expires=${new Date(session.expiresAt).toUTCString()}`]),
    );
    expect(attributes).toHaveLength(5);
    // The answer is SPEC's session answer all the same.
    expect(session.csrf.length).toBeGreaterThan(20);
  });

  it('not Secure on an http://localhost PUBLIC_URL, and named after BRAND in lower case', async () => {
    const session = await signInWithCookie(localApp, { origin: 'http://localhost:8080' });
    expect(session.cookie).toBe(`acme_session=${session.token}`);
    expect(session.setCookie).toMatch(/; HttpOnly; SameSite=Lax$/);
    expect(session.setCookie).not.toMatch(/Secure/);
  });

  it('Secure everywhere but plain http on a loopback name', () => {
    expect(sessionCookieSettings('Ivory', 'http://127.0.0.1:8080').secure).toBe(false);
    expect(sessionCookieSettings('Ivory', 'http://[::1]:8080').secure).toBe(false);
    expect(sessionCookieSettings('Ivory', 'https://localhost').secure).toBe(true);
    expect(sessionCookieSettings('Ivory', 'http://ivory.test').secure).toBe(true);
    expect(sessionCookieSettings('Ivory', 'https://pay.example.com/').origin).toBe('https://pay.example.com');
  });

  it('with no Origin (a non-browser asking for it) the cookie is set too', async () => {
    const session = await signInWithCookie(app, {});
    expect(session.cookie).toBe(`ivory_session=${session.token}`);
  });

  it('without cookie: true, or with cookie: false, no cookie is set (bearer sessions only)', async () => {
    for (const extra of [{}, { cookie: false }]) {
      const { challengeId, code } = await startChallenge(app);
      const response = await app.request({ method: 'POST', url: VERIFY, headers: { origin: ORIGIN }, payload: { challenge_id: challengeId, code, ...extra } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('a foreign Origin asking for the cookie is 403 forbidden before the code is checked: the challenge stays usable, no session opens', async () => {
    const { challengeId, code } = await startChallenge(app);
    const sessionsBefore = await app.context.db.selectFrom('sessions').select('id').execute();
    for (const origin of ['https://evil.example', 'null', 'http://dash.ivory.example', `${ORIGIN}:444`]) {
      const refused = await app.request({ method: 'POST', url: VERIFY, headers: { origin }, payload: { challenge_id: challengeId, code, cookie: true } });
      expectError(refused, 403, 'forbidden');
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    expect(await app.context.db.selectFrom('sessions').select('id').execute()).toHaveLength(sessionsBefore.length);
    const challenge = await app.context.db.selectFrom('email_challenges').select(['consumed_at', 'attempts']).where('id', '=', challengeId).executeTakeFirstOrThrow();
    expect(challenge).toEqual({ consumed_at: null, attempts: 0 });
    const accepted = await app.request({ method: 'POST', url: VERIFY, headers: { origin: ORIGIN }, payload: { challenge_id: challengeId, code, cookie: true } });
    expect(accepted.statusCode).toBe(200);
  });

  it('cookie must be a boolean: invalid_request, nothing consumed', async () => {
    const { challengeId, code } = await startChallenge(app);
    expectError(await app.request({ method: 'POST', url: VERIFY, payload: { challenge_id: challengeId, code, cookie: 'yes' } }), 400, 'invalid_request');
    const challenge = await app.context.db.selectFrom('email_challenges').select('consumed_at').where('id', '=', challengeId).executeTakeFirstOrThrow();
    expect(challenge.consumed_at).toBeNull();
  });

  it('SPEC "Authentication" 5: wallet sign-in never sets a cookie', async () => {
    const account = newWalletAccount();
    const challenge = await app.request({ method: 'POST', url: '/api/v1/auth/wallet/challenge', payload: { address: account.address, chain_id: evmChainId(app) } });
    const { challenge_id, message } = challenge.json<{ challenge_id: string; message: string }>();
    const verify = await app.request({ method: 'POST', url: '/api/v1/auth/wallet/verify', payload: { challenge_id, signature: await account.signMessage({ message }) } });
    expect(verify.statusCode).toBe(200);
    expect(challenge.headers['set-cookie']).toBeUndefined();
    expect(verify.headers['set-cookie']).toBeUndefined();
  });
});

describe('SPEC "Authentication" 2: requests authenticated by the cookie', () => {
  it('a GET with the cookie and no Authorization header is the session: GET /me answers its user and csrf, GET /profile works', async () => {
    const session = await signInWithCookie();
    const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: { cookie: `theme=dark; ${session.cookie}; other=1` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ user: { user_id: session.userId }, csrf: session.csrf });
    const profile = await app.request({ method: 'GET', url: PROFILE, headers: { cookie: session.cookie } });
    expect(profile.statusCode).toBe(200);
    // Reads need neither Origin nor X-CSRF-Token.
    const head = await app.request({ method: 'HEAD', url: PROFILE, headers: { cookie: session.cookie, origin: 'https://evil.example' } });
    expect(head.statusCode).toBe(200);
  });

  it('a write with the cookie, PUBLIC_URL\'s Origin and the session\'s X-CSRF-Token works', async () => {
    const session = await signInWithCookie();
    const response = await cookieWrite(session, { origin: ORIGIN, 'x-csrf-token': session.csrf });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ display_name: 'Changed' });
    expect(await displayName(session.userId)).toBe('Changed');
  });

  it('a write without Origin, with a foreign Origin, without or with a wrong X-CSRF-Token is 403 forbidden, and nothing is stored', async () => {
    const session = await signInWithCookie();
    const other = await signInWithCookie();
    const refusals: Record<string, string>[] = [
      { 'x-csrf-token': session.csrf },
      { origin: 'https://evil.example', 'x-csrf-token': session.csrf },
      { origin: 'http://dash.ivory.example', 'x-csrf-token': session.csrf },
      { origin: 'null', 'x-csrf-token': session.csrf },
      { origin: ORIGIN },
      { origin: ORIGIN, 'x-csrf-token': '' },
      { origin: ORIGIN, 'x-csrf-token': `${session.csrf}x` },
      { origin: ORIGIN, 'x-csrf-token': session.csrf.slice(0, -1) },
      // Another session's token is no good either.
      { origin: ORIGIN, 'x-csrf-token': other.csrf },
      // The session token itself is not the CSRF token.
      { origin: ORIGIN, 'x-csrf-token': session.token },
      {},
    ];
    for (const headers of refusals) {
      expectError(await cookieWrite(session, headers), 403, 'forbidden');
    }
    expect(await displayName(session.userId)).toBe('');
    // Refused before the body is read: a bad body does not turn it into a 400.
    const malformed = await app.request({
      method: 'PATCH',
      url: PROFILE,
      headers: { cookie: session.cookie, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expectError(malformed, 403, 'forbidden');
    // And the refusals wrote nothing else: onboarding through the cookie without CSRF makes no merchant.
    const onboarding = await app.request({
      method: 'POST',
      url: '/api/v1/onboarding',
      headers: { cookie: session.cookie, origin: ORIGIN, 'idempotency-key': 'cookie-no-csrf' },
      payload: { name: 'Acme' },
    });
    expectError(onboarding, 403, 'forbidden');
    expect(await app.context.db.selectFrom('grants').select('merchant_id').where('user_id', '=', session.userId).execute()).toEqual([]);
    expect(await app.context.db.selectFrom('idempotency_records').selectAll().where('key', '=', 'cookie-no-csrf').execute()).toEqual([]);
  });

  it('an unknown, expired or revoked cookie is 401 unauthorized', async () => {
    expectError(await app.request({ method: 'GET', url: PROFILE, headers: { cookie: 'ivory_session=not-a-session' } }), 401, 'unauthorized');
    expectError(await app.request({ method: 'GET', url: PROFILE, headers: { cookie: 'ivory_session=' } }), 401, 'unauthorized');
    expectError(await app.request({ method: 'GET', url: PROFILE, headers: { cookie: 'other_session=x' } }), 401, 'unauthorized');
    const session = await signInWithCookie();
    app.clock.advance(new Date(session.expiresAt).getTime() - app.clock.now().getTime() + 1);
    expectError(await app.request({ method: 'GET', url: PROFILE, headers: { cookie: session.cookie } }), 401, 'unauthorized');
  });

  it('the Authorization header wins: with one present the cookie is not read', async () => {
    const session = await signInWithCookie();
    const response = await app.request({ method: 'GET', url: PROFILE, headers: { cookie: session.cookie, authorization: 'Bearer unknown-token' } });
    expectError(response, 401, 'unauthorized');
  });

  it('SPEC "Authentication" 3: an API key never comes from a cookie', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const key = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    expect((await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(key.token) })).statusCode).toBe(200);
    expect((await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(writeKey.token) })).statusCode).toBe(200);
    expectError(await app.request({ method: 'GET', url: '/api/v1/me', headers: { cookie: `ivory_session=${key.token}` } }), 401, 'unauthorized');
    expectError(
      await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: { cookie: `ivory_session=${writeKey.token}` } }),
      401,
      'unauthorized',
    );
  });

  it('SPEC "Authentication" 2: bearer writes need no CSRF header, whatever Origin they carry', async () => {
    const session = await signInWithCookie();
    const response = await app.request({
      method: 'PATCH',
      url: PROFILE,
      headers: { ...authed(session.token), origin: 'https://elsewhere.example' },
      payload: { display_name: 'By bearer' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await displayName(session.userId)).toBe('By bearer');
  });
});

describe('SPEC "Sign-in" POST /auth/logout with the cookie', () => {
  it('revokes the session and clears the cookie', async () => {
    const session = await signInWithCookie();
    const response = await app.request({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { cookie: session.cookie, origin: ORIGIN, 'x-csrf-token': session.csrf },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    const cleared = response.headers['set-cookie'];
    expect(cleared).toMatch(/^ivory_session=; /);
    expect(String(cleared).split('; ')).toEqual(expect.arrayContaining(['Max-Age=0', 'HttpOnly', 'SameSite=Lax', 'Path=/', 'Secure']));
    expect(await sessionRevoked(session.token)).toBe(true);
    expectError(await app.request({ method: 'GET', url: PROFILE, headers: { cookie: session.cookie } }), 401, 'unauthorized');
  });

  it('is a write: without the CSRF token it is 403 and the session stays', async () => {
    const session = await signInWithCookie();
    const response = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: { cookie: session.cookie, origin: ORIGIN } });
    expectError(response, 403, 'forbidden');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(await sessionRevoked(session.token)).toBe(false);
  });

  it('a bearer logout sets no cookie header', async () => {
    const session = await signInWithCookie();
    const response = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(session.token) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(await sessionRevoked(session.token)).toBe(true);
  });
});
