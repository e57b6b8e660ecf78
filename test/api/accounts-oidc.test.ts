import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import type { Database } from '../../src/platform/database/schema.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { Browser, startLocalProvider, type LocalProvider, type ProviderUser } from '../support/oidc-provider.js';
import { newEmail, onboard, signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 2; SPEC "Sign-in" GET /auth/google and /auth/google/callback
// ("Browser redirect flow and provider callback") end to end: Ivory listens on
// a real port, a real OpenID provider (oidc-provider) runs on loopback, and a
// cookie-keeping fetch follows the redirects between them as a browser would.

let provider: LocalProvider;
let app: TestApp;
let origin: string;
let callbackPrefix: string;

/** A port free now, so that PUBLIC_URL (and the redirect URI registered at the provider) can name it before Ivory listens. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  callbackPrefix = `${origin}/api/v1/auth/google/callback`;
  provider = await startLocalProvider(callbackPrefix);
  app = await createTestApp({
    PUBLIC_URL: origin,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
  });
  await app.server.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await app.close();
  await provider.close();
});

function newProviderUser(overrides: Partial<ProviderUser> = {}): ProviderUser {
  return { sub: `sub-${randomBytes(8).toString('hex')}`, email: newEmail(), email_verified: true, ...overrides };
}

/**
 * A new browser's GET /auth/google, then the provider's login, up to the
 * callback URL the provider sends the browser to (not yet followed).
 */
async function callbackFor(user: ProviderUser, query = ''): Promise<{ browser: Browser; callback: string }> {
  provider.signInAs(user);
  const browser = new Browser();
  return { browser, callback: await browser.followUntil(`${origin}/api/v1/auth/google${query}`, callbackPrefix) };
}

async function signIn(user: ProviderUser, query = ''): Promise<Response> {
  const { browser, callback } = await callbackFor(user, query);
  return browser.get(callback);
}

/** The value of cookie `name` set by a response, and its attributes. */
function setCookie(response: Response, name: string): { value: string; attributes: string } | undefined {
  const line = response.headers.getSetCookie().find((candidate) => candidate.startsWith(`${name}=`));
  if (line === undefined) return undefined;
  const separator = line.indexOf(';');
  return { value: line.slice(name.length + 1, separator), attributes: line.slice(separator + 1).trim() };
}

async function countRows(table: keyof Database): Promise<number> {
  const row = await app.context.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Everything a sign-in may write, to prove that a refusal wrote nothing. */
async function snapshot() {
  return { users: await countRows('users'), identities: await countRows('identities'), sessions: await countRows('sessions') };
}

async function identitiesOf(userId: string) {
  return app.context.db.selectFrom('identities').select(['provider', 'subject', 'label']).where('user_id', '=', userId).orderBy('provider').execute();
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expectErrorEnvelope(await response.json(), code);
}

interface SessionAnswer {
  token: string;
  expires_at: string;
  csrf: string;
  user: { user_id: string; onboarding_required: boolean; mfa_required: boolean; mfa_at: string | null };
}

describe('SPEC "Sign-in" GET /auth/google: the redirect to the provider', () => {
  it('answers 302 to the authorization endpoint: code flow, PKCE S256, state, nonce, the callback as redirect_uri; the state waits server-side', async () => {
    const before = await countRows('oidc_states');
    const response = await fetch(`${origin}/api/v1/auth/google`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.origin).toBe(provider.issuer);
    const params = location.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(provider.clientId);
    expect(params.get('redirect_uri')).toBe(callbackPrefix);
    expect(params.get('scope')).toBe('openid email');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The browser keeps the state too, for these two routes only, for the state's lifetime.
    expect(setCookie(response, 'ivory_oidc_state')).toEqual({
      value: params.get('state'),
      attributes: 'Max-Age=600; Path=/api/v1/auth/google; HttpOnly; SameSite=Lax',
    });
    expect(await countRows('oidc_states')).toBe(before + 1);
    // Only a digest of the state is stored.
    const stored = await app.context.db.selectFrom('oidc_states').select('state_digest').execute();
    expect(stored.map((row) => row.state_digest)).not.toContain(params.get('state'));
  });

  it.each([['//evil.example/x'], ['/\\evil.example'], ['https://evil.example/'], ['javascript:alert(1)'], ['dashboard'], ['/a b']])(
    'refuses return_to %j (not a same-origin path) with 400 invalid_request, storing nothing',
    async (returnTo) => {
      const before = await countRows('oidc_states');
      const response = await fetch(`${origin}/api/v1/auth/google?return_to=${encodeURIComponent(returnTo)}`, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
      expect(await countRows('oidc_states')).toBe(before);
    },
  );
});

describe('SPEC "Sign-in" GET /auth/google/callback: who signs in', () => {
  it('a first sign-in creates the account with the provider identity and the verified e-mail, sets the session cookie and redirects to return_to', async () => {
    const person = newProviderUser();
    const before = await snapshot();
    const response = await signIn(person, '?return_to=%2Fdashboard%3Ftab%3Dshops');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${origin}/dashboard?tab=shops`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const cookie = setCookie(response, 'ivory_session');
    expect(cookie?.attributes).toMatch(/^Expires=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(setCookie(response, 'ivory_oidc_state')?.attributes).toMatch(/^Max-Age=0;/);
    expect(await snapshot()).toEqual({ users: before.users + 1, identities: before.identities + 2, sessions: before.sessions + 1 });

    // The dashboard learns who it is and its csrf from GET /me with the cookie alone.
    const me = await fetch(`${origin}/api/v1/me`, { headers: { cookie: `ivory_session=${cookie?.value ?? ''}` } });
    expect(me.status).toBe(200);
    const { user, csrf } = (await me.json()) as { user: SessionAnswer['user']; csrf: string };
    expect(user).toEqual({ user_id: user.user_id, onboarding_required: true, mfa_required: false, mfa_at: null });
    expect(csrf).toEqual(expect.any(String));
    expect(await identitiesOf(user.user_id)).toEqual([
      { provider: 'email', subject: person.email.toLowerCase(), label: person.email },
      { provider: 'google', subject: person.sub, label: person.email },
    ]);
  });

  it('without return_to it answers {token, expires_at, csrf, user} with the same session in the cookie; a second sign-in reaches the same user', async () => {
    const person = newProviderUser();
    const firstResponse = await signIn(person);
    expect(firstResponse.status).toBe(200);
    expect(firstResponse.headers.get('cache-control')).toBe('no-store');
    const first = (await firstResponse.json()) as SessionAnswer;
    expect(first).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      csrf: expect.any(String),
      user: { user_id: first.user.user_id, onboarding_required: true, mfa_required: false, mfa_at: null },
    });
    expect(setCookie(firstResponse, 'ivory_session')?.value).toBe(first.token);
    const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(first.token) });
    expect(me.json()).toEqual({ user: first.user, csrf: first.csrf });

    const before = await snapshot();
    const response = await signIn(person);
    expect(response.status).toBe(200);
    const second = (await response.json()) as SessionAnswer;
    expect(second.user.user_id).toBe(first.user.user_id);
    expect(second.token).not.toBe(first.token);
    expect(await snapshot()).toEqual({ ...before, sessions: before.sessions + 1 });
  });

  it('a verified e-mail that already belongs to an account signs in to it and links the provider identity', async () => {
    const wallet = await signInWithWallet(app);
    const email = newEmail();
    expect((await onboard(app, wallet.token, 'Acme', email)).statusCode).toBe(201);
    const before = await snapshot();

    // The provider reports the address in another case: addresses match case-insensitively.
    const person = newProviderUser({ email: email.toUpperCase().replace('@EXAMPLE.COM', '@example.com') });
    const session = (await (await signIn(person)).json()) as SessionAnswer;
    expect(session.user.user_id).toBe(wallet.userId);
    expect(session.user.onboarding_required).toBe(false);
    expect(await snapshot()).toEqual({ users: before.users, identities: before.identities + 1, sessions: before.sessions + 1 });
    expect((await identitiesOf(wallet.userId)).map((identity) => identity.provider)).toEqual(['email', 'google', 'wallet']);

    // And the link holds: the next sign-in finds the identity itself.
    const again = (await (await signIn(person)).json()) as SessionAnswer;
    expect(again.user.user_id).toBe(wallet.userId);
  });

  it('an account created by the provider is reached by its address later (the e-mail identity was recorded with it)', async () => {
    const person = newProviderUser();
    const first = (await (await signIn(person)).json()) as SessionAnswer;
    // Another provider account (another sub) with the same verified address joins the same user.
    const other = newProviderUser({ email: person.email });
    const second = (await (await signIn(other)).json()) as SessionAnswer;
    expect(second.user.user_id).toBe(first.user.user_id);
  });
});

describe('SPEC "Sign-in" GET /auth/google/callback: refusals store nothing', () => {
  it('an unverified e-mail answers 400 email_required', async () => {
    const before = await snapshot();
    await expectError(await signIn(newProviderUser({ email_verified: false })), 400, 'email_required');
    expect(await snapshot()).toEqual(before);
  });

  it('a disposable address with no account yet answers 400 disposable_email (SPEC "Errors")', async () => {
    const before = await snapshot();
    await expectError(await signIn(newProviderUser({ email: `someone-${randomBytes(4).toString('hex')}@mailinator.com` })), 400, 'disposable_email');
    expect(await snapshot()).toEqual(before);
  });

  it('a replayed callback (its state already used) answers 401 unauthorized', async () => {
    const { browser, callback } = await callbackFor(newProviderUser());
    // The browser clears its state cookie on success; a replay that brings the state back is refused by the used row.
    const state = new URL(callback).searchParams.get('state') ?? '';
    expect((await browser.get(callback)).status).toBe(200);
    const before = await snapshot();
    await expectError(await fetch(callback, { headers: { cookie: `ivory_oidc_state=${state}` } }), 401, 'unauthorized');
    await expectError(await browser.get(callback), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });

  it('two concurrent callbacks with one state: exactly one signs in', async () => {
    const { browser, callback } = await callbackFor(newProviderUser());
    const before = await snapshot();
    const answers = await Promise.all([browser.get(callback), browser.get(callback)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    expect(await snapshot()).toEqual({ users: before.users + 1, identities: before.identities + 2, sessions: before.sessions + 1 });
  });

  it('an unknown, altered or missing state answers 401 unauthorized and leaves the real one usable', async () => {
    const { browser, callback } = await callbackFor(newProviderUser());
    const real = new URL(callback);
    const before = await snapshot();
    const states = await countRows('oidc_states');
    const altered = new URL(real);
    altered.searchParams.set('state', `${real.searchParams.get('state') ?? ''}x`);
    await expectError(await browser.get(altered.href), 401, 'unauthorized');
    const missing = new URL(real);
    missing.searchParams.delete('state');
    await expectError(await browser.get(missing.href), 401, 'unauthorized');
    await expectError(await browser.get(`${callbackPrefix}?code=made-up&state=made-up`), 401, 'unauthorized');
    await expectError(await fetch(`${callbackPrefix}?code=made-up&state=made-up`, { headers: { cookie: 'ivory_oidc_state=made-up' } }), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
    expect(await countRows('oidc_states')).toBe(states);
    expect((await browser.get(callback)).status).toBe(200);
  });

  it('a callback URL opened by another browser (login CSRF: no state cookie, or another one) answers 401 and leaves the state to its own browser', async () => {
    const { browser, callback } = await callbackFor(newProviderUser());
    const before = await snapshot();
    await expectError(await fetch(callback), 401, 'unauthorized');
    const victim = new Browser();
    await victim.get(`${origin}/api/v1/auth/google`);
    await expectError(await victim.get(callback), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
    expect((await browser.get(callback)).status).toBe(200);
  });

  it('a state past its 10 minutes answers 401 unauthorized', async () => {
    const { browser, callback } = await callbackFor(newProviderUser());
    app.clock.advance(11 * 60 * 1000);
    const before = await snapshot();
    await expectError(await browser.get(callback), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });

  it('a provider error (access_denied) answers 401 unauthorized and uses up the state', async () => {
    const browser = new Browser();
    const start = await browser.get(`${origin}/api/v1/auth/google`);
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const states = await countRows('oidc_states');
    const before = await snapshot();
    const denied = `${callbackPrefix}?error=access_denied&state=${state}&iss=${encodeURIComponent(provider.issuer)}`;
    await expectError(await browser.get(denied), 401, 'unauthorized');
    expect(await countRows('oidc_states')).toBe(states - 1);
    expect(await snapshot()).toEqual(before);
  });

  it('a code that does not match the state\'s PKCE verifier (swapped between two requests) answers 401 unauthorized', async () => {
    const first = await callbackFor(newProviderUser());
    const second = await callbackFor(newProviderUser());
    const swapped = new URL(first.callback);
    swapped.searchParams.set('code', new URL(second.callback).searchParams.get('code') ?? '');
    const before = await snapshot();
    await expectError(await first.browser.get(swapped.href), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });
});

describe('identity-provider configuration', () => {
  it('without OIDC_CLIENT_ID both routes answer 404 not_found, whatever the query', async () => {
    const unconfigured = await createTestApp();
    try {
      for (const url of ['/api/v1/auth/google', '/api/v1/auth/google?return_to=//x', '/api/v1/auth/google/callback?code=a&state=b', '/api/v1/auth/google/callback?state=a&state=b']) {
        const response = await unconfigured.request({ method: 'GET', url });
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
      }
    } finally {
      await unconfigured.close();
    }
  });

  it('OIDC_ISSUER defaults to Google when a client id is set; bad combinations stop start-up with one line', () => {
    expect(loadConfig({ OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 'secret' }).oidc).toEqual({
      issuer: 'https://accounts.google.com',
      clientId: 'id',
      clientSecret: 'secret',
    });
    expect(loadConfig({}).oidc).toBeUndefined();
    const refused: [Record<string, string>, string][] = [
      [{ OIDC_CLIENT_ID: 'id' }, 'invalid configuration: OIDC_CLIENT_SECRET is required with OIDC_CLIENT_ID'],
      [{ OIDC_CLIENT_SECRET: 'secret' }, 'invalid configuration: OIDC_CLIENT_ID is required with OIDC_CLIENT_SECRET'],
      [{ OIDC_ISSUER: 'https://id.example' }, 'invalid configuration: OIDC_CLIENT_ID is required with OIDC_ISSUER'],
      [{ OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', OIDC_ISSUER: 'http://id.example' }, 'invalid configuration: OIDC_ISSUER must use https (http only for localhost)'],
      [{ OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', OIDC_ISSUER: 'not a url' }, 'invalid configuration: OIDC_ISSUER must be an absolute https URL, got "not a url"'],
    ];
    for (const [env, message] of refused) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
  });
});
