import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { newEmail, onboard, signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 6; SPEC "Account" GET/PATCH /profile, GET /identities,
// DELETE /identities/{id}; "Profile"; "Authentication" 4 (session only) and 7
// (PATCH /profile takes no Idempotency-Key).

const PROFILE = '/api/v1/profile';
const IDENTITIES = '/api/v1/identities';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function expectError(response: { statusCode: number; json: () => unknown }, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

function patch(token: string, payload: unknown) {
  return app.request({ method: 'PATCH', url: PROFILE, headers: authed(token), payload: payload as Record<string, unknown> });
}

async function userRow(userId: string) {
  return app.context.db.selectFrom('users').select(['display_name', 'theme', 'language']).where('id', '=', userId).executeTakeFirstOrThrow();
}

/** A wallet account onboarded with an e-mail a second later: two sign-in methods, in a known order. */
async function walletThenEmail(email = newEmail()) {
  const signedIn = await signInWithWallet(app);
  app.clock.advance(1_000);
  const onboarded = await onboard(app, signedIn.token, 'Acme', email);
  expect(onboarded.statusCode).toBe(201);
  return signedIn;
}

async function identityRows(userId: string) {
  return app.context.db.selectFrom('identities').select(['id', 'provider']).where('user_id', '=', userId).orderBy('created_at').execute();
}

describe('SPEC "Account" GET /profile', () => {
  it('answers the Profile of a new account: empty name, system theme, English, no avatar', async () => {
    const { token } = await signInWithWallet(app);
    const response = await app.request({ method: 'GET', url: PROFILE, headers: authed(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      display_name: '',
      preferences: { theme: 'system', language: 'en' },
      avatar_url: '',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});

describe('SPEC "Account" PATCH /profile', () => {
  it('changes the fields given, keeps the others, answers the Profile, without an Idempotency-Key', async () => {
    const { token } = await signInWithWallet(app);
    const first = await patch(token, { display_name: '  Ada Lovelace  ', preferences: { theme: 'dark' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ display_name: 'Ada Lovelace', preferences: { theme: 'dark', language: 'en' } });

    const second = await patch(token, { preferences: { language: 'ru' } });
    expect(second.json()).toMatchObject({ display_name: 'Ada Lovelace', preferences: { theme: 'dark', language: 'ru' } });

    const unchanged = await patch(token, {});
    expect(unchanged.statusCode).toBe(200);
    const read = await app.request({ method: 'GET', url: PROFILE, headers: authed(token) });
    expect(read.json()).toEqual(unchanged.json());
    expect(read.json()).toEqual(second.json());

    for (const theme of ['light', 'system', 'dark']) {
      expect((await patch(token, { preferences: { theme } })).json().preferences.theme).toBe(theme);
    }
  });

  it('accepts a name of 100 characters (code points) and an empty name, which clears it', async () => {
    const { token } = await signInWithWallet(app);
    expect((await patch(token, { display_name: '🦄'.repeat(100) })).statusCode).toBe(200);
    expect((await patch(token, { display_name: 'n'.repeat(100) })).json().display_name).toBe('n'.repeat(100));
    expect((await patch(token, { display_name: '   ' })).json().display_name).toBe('');
  });

  it('answers 400 invalid_profile to any invalid field and changes nothing', async () => {
    const { token, userId } = await signInWithWallet(app);
    await patch(token, { display_name: 'Kept', preferences: { theme: 'light', language: 'ru' } });
    const before = await userRow(userId);
    const cases: unknown[] = [
      { display_name: 'x'.repeat(101) },
      { display_name: '🦄'.repeat(101) },
      { display_name: 'two\nlines' },
      { display_name: 'null\u0000byte' },
      { display_name: 42 },
      { display_name: null },
      { preferences: { theme: 'blue' } },
      { preferences: { theme: 'DARK' } },
      { preferences: { language: 'de' } },
      { preferences: { language: '' } },
      { preferences: { theme: 1 } },
      { preferences: 'dark' },
      { preferences: null },
      { display_name: 'Fine', preferences: { theme: 'dark', language: 'fr' } },
    ];
    for (const payload of cases) {
      expectError(await patch(token, payload), 400, 'invalid_profile');
      expect(await userRow(userId), JSON.stringify(payload)).toEqual(before);
    }
  });

  it('answers invalid_json to unknown fields and malformed JSON, json_content_type_required to other types, changing nothing', async () => {
    const { token, userId } = await signInWithWallet(app);
    const before = await userRow(userId);
    expectError(await patch(token, { display_name: 'A', avatar_url: 'data:,' }), 400, 'invalid_json');
    expectError(await patch(token, { preferences: { theme: 'dark', font: 'serif' } }), 400, 'invalid_json');
    expectError(await patch(token, { created_at: '2020-01-01T00:00:00Z' }), 400, 'invalid_json');
    expectError(
      await app.request({ method: 'PATCH', url: PROFILE, headers: { ...authed(token), 'content-type': 'application/json' }, payload: '{"display_name":' }),
      400,
      'invalid_json',
    );
    expectError(
      await app.request({ method: 'PATCH', url: PROFILE, headers: { ...authed(token), 'content-type': 'text/plain' }, payload: 'display_name=A' }),
      400,
      'json_content_type_required',
    );
    expect(await userRow(userId)).toEqual(before);
  });

  it('changes only the caller\'s own profile', async () => {
    const one = await signInWithWallet(app);
    const two = await signInWithWallet(app);
    await patch(one.token, { display_name: 'One' });
    expect((await userRow(two.userId)).display_name).toBe('');
  });
});

describe('SPEC "Account" GET /identities and DELETE /identities/{id}', () => {
  it('lists the sign-in methods: the wallet, then the e-mail linked at onboarding', async () => {
    const email = newEmail();
    const { token, account } = await walletThenEmail(email);
    const response = await app.request({ method: 'GET', url: IDENTITIES, headers: authed(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { id: expect.any(String), provider: 'wallet', label: account.address },
      { id: expect.any(String), provider: 'email', label: email },
    ]);
  });

  it('unlinks one method with 200 {ok: true}; the other remains', async () => {
    const { token, userId } = await walletThenEmail();
    const [wallet, email] = await identityRows(userId);
    const response = await app.request({ method: 'DELETE', url: `${IDENTITIES}/${email?.id}`, headers: authed(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(await identityRows(userId)).toEqual([wallet]);
    const listed = await app.request({ method: 'GET', url: IDENTITIES, headers: authed(token) });
    expect(listed.json().map((identity: { id: string }) => identity.id)).toEqual([wallet?.id]);
  });

  it('answers 400 last_login_method for the last method and keeps it', async () => {
    const { token, userId } = await signInWithWallet(app);
    const [wallet] = await identityRows(userId);
    expectError(await app.request({ method: 'DELETE', url: `${IDENTITIES}/${wallet?.id}`, headers: authed(token) }), 400, 'last_login_method');
    expect(await identityRows(userId)).toEqual([wallet]);
  });

  it('answers 400 not_found for an unknown, malformed or another user\'s id, and deletes nothing', async () => {
    const { token, userId } = await walletThenEmail();
    const stranger = await walletThenEmail();
    const [strangerWallet] = await identityRows(stranger.userId);
    const mine = await identityRows(userId);
    for (const id of [newId(), 'not-a-uuid', strangerWallet?.id ?? '', `${newId()}'--`, '00000000-0000-0000-0000-000000000000']) {
      expectError(await app.request({ method: 'DELETE', url: `${IDENTITIES}/${encodeURIComponent(id)}`, headers: authed(token) }), 400, 'not_found');
    }
    expect(await identityRows(userId)).toEqual(mine);
    expect(await identityRows(stranger.userId)).toHaveLength(2);
  });

  it('of two concurrent unlinks of the last two methods, one wins and the other is last_login_method', async () => {
    const { token, userId } = await walletThenEmail();
    const [first, second] = await identityRows(userId);
    const answers = await Promise.all(
      [first, second].map((identity) => app.request({ method: 'DELETE', url: `${IDENTITIES}/${identity?.id}`, headers: authed(token) })),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.statusCode === 400)?.json().error.code).toBe('last_login_method');
    expect(await identityRows(userId)).toHaveLength(1);
  });
});

describe('SPEC "Authentication" 4: profile and identities are session only', () => {
  it('refuses an API key with 403 forbidden and a missing or bad credential with 401, changing nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const before = await userRow(owner.user.id);
    const calls = [
      { method: 'GET' as const, url: PROFILE },
      { method: 'PATCH' as const, url: PROFILE, payload: { display_name: 'Key' } },
      { method: 'GET' as const, url: IDENTITIES },
      { method: 'DELETE' as const, url: `${IDENTITIES}/${newId()}` },
    ];
    for (const call of calls) {
      for (const key of [owner.key.token, readKey.token]) {
        expectError(await app.request({ ...call, headers: authed(key) }), 403, 'forbidden');
      }
      expectError(await app.request(call), 401, 'unauthorized');
      expectError(await app.request({ ...call, headers: authed('not-a-session') }), 401, 'unauthorized');
    }
    expect(await userRow(owner.user.id)).toEqual(before);
  });
});
