import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createSession, createUser } from '../support/factories.js';
import { SoftwareAuthenticator, cborEncode, type Ceremony } from '../support/software-authenticator.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 5; SPEC "Sign-in" POST /auth/passkeys/begin, POST
// /auth/passkeys/finish/{id}, PATCH and DELETE /auth/passkeys/{id} (bodies n/s:
// ours are in the OpenAPI document); "Profile" security summary `passkeys`;
// "Authentication" 3, 4 (session only) and 6 (a passkey is a second factor);
// "Errors" not_found, invalid_name, mfa_required. Every ceremony runs against
// a software authenticator that makes real attestations and assertions.

const API = '/api/v1';
const ORIGIN = 'http://ivory.test'; // PUBLIC_URL of the test app
const RP_ID = 'ivory.test';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

interface Answer {
  statusCode: number;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are checked field by field
}

function expectError(response: Answer, status: number, code: string) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

function post(url: string, token: string, payload: unknown) {
  return app.request({ method: 'POST', url: `${API}${url}`, headers: authed(token), payload: payload as Record<string, unknown> });
}

/** A signed-in user without any factor, as the factories make them. */
async function newUser() {
  const user = await createUser(app.context.db);
  const session = await createSession(app.context.db, user.id);
  return { userId: user.id, sessionId: session.id, token: session.token };
}

async function begin(token: string, body: Record<string, unknown>) {
  const response = await post('/auth/passkeys/begin', token, body);
  expect(response.statusCode, response.body).toBe(200);
  const answer = response.json<{ id: string; options: { challenge: string } & Record<string, unknown> }>();
  return { id: answer.id, options: answer.options, ceremony: { challenge: answer.options.challenge, origin: ORIGIN, rpId: RP_ID } as Ceremony };
}

function finish(token: string, ceremonyId: string, response: unknown) {
  return post(`/auth/passkeys/finish/${ceremonyId}`, token, { response });
}

/** Registers a new credential of `authenticator` for the session's user. */
async function registerPasskey(token: string, authenticator: SoftwareAuthenticator, name?: string) {
  const begun = await begin(token, name === undefined ? { purpose: 'register' } : { purpose: 'register', name });
  const { credentialId, response } = authenticator.register(begun.ceremony);
  const finished = await finish(token, begun.id, response);
  expect(finished.statusCode, finished.body).toBe(200);
  return { credentialId, passkeyId: finished.json<{ passkey: { id: string } }>().passkey.id };
}

async function passkeyRows(userId: string) {
  return app.context.db
    .selectFrom('passkeys')
    .select(['id', 'credential_id', 'name', 'counter', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();
}

async function sessionMfaAt(sessionId: string) {
  const row = await app.context.db.selectFrom('sessions').select('mfa_at').where('id', '=', sessionId).executeTakeFirstOrThrow();
  return row.mfa_at;
}

async function ceremonyCount(userId: string) {
  const rows = await app.context.db.selectFrom('passkey_challenges').select('id').where('user_id', '=', userId).execute();
  return rows.length;
}

async function securitySummary(token: string) {
  const response = await app.request({ method: 'GET', url: `${API}/profile/security`, headers: authed(token) });
  expect(response.statusCode).toBe(200);
  return response.json<{ totp: boolean; passkeys: { id: string; name: string; created_at: string }[] }>();
}

/** Everything a refused call must leave as it was. */
async function snapshot(user: { userId: string; sessionId: string }) {
  return { passkeys: await passkeyRows(user.userId), mfaAt: await sessionMfaAt(user.sessionId) };
}

describe('SPEC "Sign-in" passkey registration', () => {
  it('begin answers WebAuthn creation options for PUBLIC_URL; finish stores the credential; the security summary lists it', async () => {
    const user = await newUser();
    const begun = await begin(user.token, { purpose: 'register', name: '  Laptop  ' });
    expect(begun.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(begun.options).toMatchObject({
      rp: { id: RP_ID, name: 'Ivory' },
      user: { id: Buffer.from(user.userId.replace(/-/g, ''), 'hex').toString('base64url') },
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      attestation: 'none',
      excludeCredentials: [],
    });
    expect(await ceremonyCount(user.userId)).toBe(1);

    const authenticator = new SoftwareAuthenticator();
    const { credentialId, response } = authenticator.register(begun.ceremony);
    const finished = await finish(user.token, begun.id, response);
    expect(finished.statusCode, finished.body).toBe(200);
    const answer = finished.json();
    expect(answer).toEqual({
      passkey: { id: expect.any(String), name: 'Laptop', created_at: app.clock.now().toISOString() },
      user: { user_id: user.userId, onboarding_required: false, mfa_required: false, mfa_at: app.clock.now().toISOString() },
    });

    const rows = await passkeyRows(user.userId);
    expect(rows).toEqual([{ id: answer.passkey.id, credential_id: credentialId, name: 'Laptop', counter: expect.anything(), last_used_at: null }]);
    expect(Number(rows[0]?.counter)).toBe(0);
    expect(await ceremonyCount(user.userId)).toBe(0);
    expect(await securitySummary(user.token)).toEqual({ totp: false, passkeys: [answer.passkey] });

    // A second registration excludes the first credential and gets the default name.
    app.clock.advance(1_000);
    const again = await begin(user.token, { purpose: 'register' });
    expect(again.options.excludeCredentials).toEqual([{ id: credentialId, type: 'public-key', transports: ['internal'] }]);
    const second = await finish(user.token, again.id, authenticator.register(again.ceremony).response);
    expect(second.json().passkey.name).toBe('Passkey');
    expect((await securitySummary(user.token)).passkeys.map((passkey) => passkey.name)).toEqual(['Laptop', 'Passkey']);
  });

  it('refuses an attestation for another origin, another RP id or another challenge: 400 invalid_passkey, nothing stored, the ceremony used up', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const before = await snapshot(user);
    const wrongs: ((ceremony: Ceremony) => Ceremony)[] = [
      (ceremony) => ({ ...ceremony, origin: 'https://evil.test' }),
      (ceremony) => ({ ...ceremony, origin: 'http://ivory.test:8080' }),
      (ceremony) => ({ ...ceremony, rpId: 'evil.test' }),
      (ceremony) => ({ ...ceremony, challenge: Buffer.from('not the challenge').toString('base64url') }),
    ];
    for (const wrong of wrongs) {
      const begun = await begin(user.token, { purpose: 'register' });
      const { response } = authenticator.register(wrong(begun.ceremony));
      expectError(await finish(user.token, begun.id, response), 400, 'invalid_passkey');
      // Single-use even when refused: the right answer now comes too late.
      const { response: right } = authenticator.register(begun.ceremony);
      expectError(await finish(user.token, begun.id, right), 400, 'passkey_challenge_invalid');
    }
    expect(await snapshot(user)).toEqual(before);
    expect(await ceremonyCount(user.userId)).toBe(0);
  });

  it('refuses malformed attestations (bad CBOR, bad base64, a flipped authData byte) and a credential already registered, by anyone: invalid_passkey', async () => {
    const user = await newUser();
    const other = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(user.token, authenticator);
    const before = { mine: await snapshot(user), theirs: await snapshot(other) };

    const garbage = await begin(user.token, { purpose: 'register' });
    const { response } = authenticator.register(garbage.ceremony);
    response.response.attestationObject = cborEncode(new Map([['fmt', 'none']])).toString('base64url');
    expectError(await finish(user.token, garbage.id, response), 400, 'invalid_passkey');

    const notBase64 = await begin(user.token, { purpose: 'register' });
    const second = authenticator.register(notBase64.ceremony).response;
    second.response.clientDataJSON = '%%%';
    expectError(await finish(user.token, notBase64.id, second), 400, 'invalid_passkey');

    // authData (164 bytes: CBOR head 0x58 and a 1-byte length) begins with the RP id hash: flip its first byte.
    const flipped = await begin(user.token, { purpose: 'register' });
    const third = authenticator.register(flipped.ceremony).response;
    const attestation = Buffer.from(third.response.attestationObject, 'base64url');
    const authDataStart = attestation.indexOf(Buffer.from('authData')) + 'authData'.length + 2;
    expect(attestation.subarray(authDataStart - 2, authDataStart)).toEqual(Buffer.from([0x58, 164]));
    attestation[authDataStart] = (attestation[authDataStart] ?? 0) ^ 0x01;
    third.response.attestationObject = attestation.toString('base64url');
    expectError(await finish(user.token, flipped.id, third), 400, 'invalid_passkey');

    // The same credential attested again, for its user or for another: one account per credential.
    for (const who of [user, other]) {
      const again = await begin(who.token, { purpose: 'register' });
      const reused = authenticator.register(again.ceremony, { reuse: credentialId });
      expect(reused.credentialId).toBe(credentialId);
      expectError(await finish(who.token, again.id, reused.response), 400, 'invalid_passkey');
    }

    expect({ mine: await snapshot(user), theirs: await snapshot(other) }).toEqual(before);
  });
});

describe('SPEC "Sign-in" passkey authentication (second factor, SPEC "Authentication" 6)', () => {
  it('begin allows exactly the user\'s passkeys; finish verifies the assertion, raises the counter and sets mfa_at', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const first = await registerPasskey(user.token, authenticator, 'Phone');
    app.clock.advance(1_000); // passkeys are listed oldest first
    const second = await registerPasskey(user.token, authenticator, 'Key');
    app.clock.advance(60_000);

    const begun = await begin(user.token, { purpose: 'authenticate' });
    expect(begun.options).toMatchObject({
      rpId: RP_ID,
      challenge: expect.any(String),
      allowCredentials: [
        { id: first.credentialId, type: 'public-key', transports: ['internal'] },
        { id: second.credentialId, type: 'public-key', transports: ['internal'] },
      ],
    });
    const finished = await finish(user.token, begun.id, authenticator.assert(second.credentialId, begun.ceremony));
    expect(finished.statusCode, finished.body).toBe(200);
    const now = app.clock.now().toISOString();
    expect(finished.json()).toEqual({
      passkey: { id: second.passkeyId, name: 'Key', created_at: expect.any(String) },
      user: { user_id: user.userId, onboarding_required: false, mfa_required: false, mfa_at: now },
    });
    expect((await sessionMfaAt(user.sessionId))?.toISOString()).toBe(now);
    const rows = await passkeyRows(user.userId);
    expect(rows.map((row) => [row.name, Number(row.counter), row.last_used_at?.toISOString() ?? null])).toEqual([
      ['Phone', 0, null],
      ['Key', 1, now],
    ]);
  });

  it('a user with a passkey owes it in every new session: 403 mfa_required on business calls until a passkey assertion', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(owner.session.token, authenticator);

    const later = await createSession(app.context.db, owner.user.id);
    const me = await app.request({ method: 'GET', url: `${API}/me`, headers: authed(later.token) });
    expect(me.json()).toMatchObject({ user: { mfa_required: true, mfa_at: null } });
    expectError(await app.request({ method: 'GET', url: `${API}/merchants`, headers: authed(later.token) }), 403, 'mfa_required');
    expectError(await app.request({ method: 'GET', url: `${API}/profile`, headers: authed(later.token) }), 403, 'mfa_required');
    // Registering another passkey is a factor change: not before the factor is passed.
    expectError(await post('/auth/passkeys/begin', later.token, { purpose: 'register' }), 403, 'mfa_required');

    const begun = await begin(later.token, { purpose: 'authenticate' });
    const finished = await finish(later.token, begun.id, authenticator.assert(credentialId, begun.ceremony));
    expect(finished.json().user).toMatchObject({ mfa_required: false, mfa_at: app.clock.now().toISOString() });
    expect((await app.request({ method: 'GET', url: `${API}/merchants`, headers: authed(later.token) })).statusCode).toBe(200);
  });

  it('refuses another origin or RP id, another challenge, a tampered signature or authData, an unknown credential: invalid_passkey, counter and mfa_at unchanged', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(user.token, authenticator);
    const stranger = new SoftwareAuthenticator();
    const unknown = stranger.register({ challenge: 'x', origin: ORIGIN, rpId: RP_ID }).credentialId;
    app.clock.advance(60_000);
    const before = await snapshot(user);

    const flipLastByte = (base64url: string) => {
      const bytes = Buffer.from(base64url, 'base64url');
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;
      return bytes.toString('base64url');
    };
    const attempts: { label: string; answer: (ceremony: Ceremony) => unknown }[] = [
      { label: 'origin', answer: (ceremony) => authenticator.assert(credentialId, { ...ceremony, origin: 'https://evil.test' }) },
      { label: 'rp id', answer: (ceremony) => authenticator.assert(credentialId, { ...ceremony, rpId: 'evil.test' }) },
      { label: 'challenge', answer: (ceremony) => authenticator.assert(credentialId, { ...ceremony, challenge: 'AAAAAAAAAAAAAAAAAAAAAA' }) },
      {
        label: 'signature',
        answer: (ceremony) => {
          const assertion = authenticator.assert(credentialId, ceremony);
          assertion.response.signature = flipLastByte(assertion.response.signature);
          return assertion;
        },
      },
      {
        label: 'authData (counter raised after signing)',
        answer: (ceremony) => {
          const assertion = authenticator.assert(credentialId, ceremony);
          assertion.response.authenticatorData = flipLastByte(assertion.response.authenticatorData);
          return assertion;
        },
      },
      { label: 'unknown credential', answer: (ceremony) => stranger.assert(unknown, ceremony) },
      { label: 'not a credential', answer: () => ({ id: 'x', rawId: 'x', type: 'public-key', response: {} }) },
    ];
    for (const attempt of attempts) {
      const begun = await begin(user.token, { purpose: 'authenticate' });
      const refused = await finish(user.token, begun.id, attempt.answer(begun.ceremony));
      expect({ label: attempt.label, status: refused.statusCode, body: refused.json() }).toEqual({
        label: attempt.label,
        status: 400,
        body: { error: { code: 'invalid_passkey', message: 'invalid_passkey' } },
      });
    }
    expect(await snapshot(user)).toEqual(before);
    expect(await ceremonyCount(user.userId)).toBe(0);
  });

  it('refuses a signature counter that did not rise (a cloned authenticator): invalid_passkey, counter unchanged', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(user.token, authenticator);
    const first = await begin(user.token, { purpose: 'authenticate' });
    expect((await finish(user.token, first.id, authenticator.assert(credentialId, first.ceremony, { counter: 5 }))).statusCode).toBe(200);
    app.clock.advance(60_000);
    const before = await snapshot(user);

    for (const counter of [5, 4, 0]) {
      const begun = await begin(user.token, { purpose: 'authenticate' });
      expectError(await finish(user.token, begun.id, authenticator.assert(credentialId, begun.ceremony, { counter })), 400, 'invalid_passkey');
    }
    expect(await snapshot(user)).toEqual(before);
    expect(Number((await passkeyRows(user.userId))[0]?.counter)).toBe(5);

    const next = await begin(user.token, { purpose: 'authenticate' });
    expect((await finish(user.token, next.id, authenticator.assert(credentialId, next.ceremony, { counter: 6 }))).statusCode).toBe(200);
    expect(Number((await passkeyRows(user.userId))[0]?.counter)).toBe(6);
  });

  it('a ceremony is single-use, short-lived and bound to its session: passkey_challenge_invalid', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(user.token, authenticator);

    const used = await begin(user.token, { purpose: 'authenticate' });
    const assertion = authenticator.assert(credentialId, used.ceremony);
    expect((await finish(user.token, used.id, assertion)).statusCode).toBe(200);
    app.clock.advance(60_000);
    const before = await snapshot(user);
    // The very same answer again (a replay), and a fresh one for the used ceremony.
    expectError(await finish(user.token, used.id, assertion), 400, 'passkey_challenge_invalid');
    expectError(await finish(user.token, used.id, authenticator.assert(credentialId, used.ceremony)), 400, 'passkey_challenge_invalid');

    const expired = await begin(user.token, { purpose: 'authenticate' });
    app.clock.advance(5 * 60_000);
    expectError(await finish(user.token, expired.id, authenticator.assert(credentialId, expired.ceremony)), 400, 'passkey_challenge_invalid');

    // Another session of the same user cannot finish it, and does not use it up.
    const other = await createSession(app.context.db, user.userId);
    const mine = await begin(user.token, { purpose: 'authenticate' });
    const answer = authenticator.assert(credentialId, mine.ceremony);
    expectError(await finish(other.token, mine.id, answer), 400, 'passkey_challenge_invalid');

    for (const id of [newId(), 'not-a-uuid']) {
      expectError(await finish(user.token, id, authenticator.assert(credentialId, mine.ceremony)), 400, 'passkey_challenge_invalid');
    }
    expect(await snapshot(user)).toEqual(before);
    expect(await sessionMfaAt(other.id)).toBeNull();
    expect((await finish(user.token, mine.id, answer)).statusCode).toBe(200);
  });
});

describe('Passkey ceremonies under concurrency', () => {
  it('one ceremony finished twice at once: one 200, one passkey_challenge_invalid; one credential registered through two ceremonies at once: one passkey', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { credentialId } = await registerPasskey(user.token, authenticator);

    const begun = await begin(user.token, { purpose: 'authenticate' });
    const answers = await Promise.all([1, 2].map((counter) => finish(user.token, begun.id, authenticator.assert(credentialId, begun.ceremony, { counter }))));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.statusCode === 400)?.json().error.code).toBe('passkey_challenge_invalid');

    const first = await begin(user.token, { purpose: 'register' });
    const second = await begin(user.token, { purpose: 'register' });
    const fresh = authenticator.register(first.ceremony);
    const again = authenticator.register(second.ceremony, { reuse: fresh.credentialId });
    const registered = await Promise.all([finish(user.token, first.id, fresh.response), finish(user.token, second.id, again.response)]);
    expect(registered.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
    expect(registered.find((answer) => answer.statusCode === 400)?.json().error.code).toBe('invalid_passkey');
    expect((await passkeyRows(user.userId)).filter((row) => row.credential_id === fresh.credentialId)).toHaveLength(1);
  });
});

describe('SPEC "Sign-in" passkey begin: bad input', () => {
  it('refuses a missing or unknown purpose, a name with authenticate, a bad name, authenticate without passkeys; no ceremony stored', async () => {
    const user = await newUser();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'invalid_request'],
      [{ purpose: 'login' }, 'invalid_request'],
      [{ purpose: 'authenticate', name: 'x' }, 'invalid_request'],
      [{ purpose: 'register', name: '' }, 'invalid_name'],
      [{ purpose: 'register', name: '   ' }, 'invalid_name'],
      [{ purpose: 'register', name: 'x'.repeat(65) }, 'invalid_name'],
      [{ purpose: 'register', name: 'tab\there' }, 'invalid_name'],
      [{ purpose: 'register', name: 42 }, 'invalid_name'],
      [{ purpose: 'register', extra: true }, 'invalid_json'],
      [{ purpose: 'authenticate' }, 'invalid_state'],
    ];
    for (const [body, code] of cases) expectError(await post('/auth/passkeys/begin', user.token, body), 400, code);
    expect(await ceremonyCount(user.userId)).toBe(0);
    expect(await passkeyRows(user.userId)).toEqual([]);
  });

  it('finish refuses a body that is not {response: credential}: invalid_passkey or invalid_json, the ceremony kept', async () => {
    const user = await newUser();
    const begun = await begin(user.token, { purpose: 'register' });
    expectError(await post(`/auth/passkeys/finish/${begun.id}`, user.token, {}), 400, 'invalid_passkey');
    expectError(await post(`/auth/passkeys/finish/${begun.id}`, user.token, { response: 'x' }), 400, 'invalid_passkey');
    expectError(await post(`/auth/passkeys/finish/${begun.id}`, user.token, { response: { id: 'x' } }), 400, 'invalid_passkey');
    const answer = new SoftwareAuthenticator().register(begun.ceremony).response;
    expectError(await post(`/auth/passkeys/finish/${begun.id}`, user.token, { response: answer, extra: 1 }), 400, 'invalid_json');
    expect(await passkeyRows(user.userId)).toEqual([]);
    expect((await finish(user.token, begun.id, answer)).statusCode).toBe(200);
  });
});

describe('SPEC "Sign-in" PATCH and DELETE /auth/passkeys/{id}', () => {
  it('renames the user\'s own passkey; a bad name is invalid_name; another user\'s or an unknown id is 404 not_found; nothing changed', async () => {
    const user = await newUser();
    const other = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { passkeyId } = await registerPasskey(user.token, authenticator, 'Old');
    const theirs = await registerPasskey(other.token, authenticator, 'Theirs');

    const renamed = await app.request({ method: 'PATCH', url: `${API}/auth/passkeys/${passkeyId}`, headers: authed(user.token), payload: { name: ' New ' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ id: passkeyId, name: 'New', created_at: expect.any(String) });
    expect((await securitySummary(user.token)).passkeys).toEqual([renamed.json()]);

    const before = { mine: await passkeyRows(user.userId), theirs: await passkeyRows(other.userId) };
    const refusals: [string, unknown, number, string][] = [
      [passkeyId, { name: '' }, 400, 'invalid_name'],
      [passkeyId, { name: 'y'.repeat(65) }, 400, 'invalid_name'],
      [passkeyId, {}, 400, 'invalid_name'],
      [passkeyId, { name: 'x', extra: 1 }, 400, 'invalid_json'],
      [theirs.passkeyId, { name: 'Mine now' }, 404, 'not_found'],
      [newId(), { name: 'x' }, 404, 'not_found'],
      ['not-a-uuid', { name: 'x' }, 404, 'not_found'],
    ];
    for (const [id, payload, status, code] of refusals) {
      const response = await app.request({ method: 'PATCH', url: `${API}/auth/passkeys/${id}`, headers: authed(user.token), payload: payload as Record<string, unknown> });
      expectError(response, status, code);
    }
    expect({ mine: await passkeyRows(user.userId), theirs: await passkeyRows(other.userId) }).toEqual(before);
  });

  it('deletes the user\'s own passkey (it no longer authenticates); another user\'s or an unknown id is 404 not_found', async () => {
    const user = await newUser();
    const other = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const kept = await registerPasskey(user.token, authenticator, 'Kept');
    const removed = await registerPasskey(user.token, authenticator, 'Removed');
    const theirs = await registerPasskey(other.token, authenticator, 'Theirs');

    for (const id of [theirs.passkeyId, newId(), 'not-a-uuid']) {
      expectError(await app.request({ method: 'DELETE', url: `${API}/auth/passkeys/${id}`, headers: authed(user.token) }), 404, 'not_found');
    }
    expect((await passkeyRows(other.userId)).map((row) => row.id)).toEqual([theirs.passkeyId]);

    const deleted = await app.request({ method: 'DELETE', url: `${API}/auth/passkeys/${removed.passkeyId}`, headers: authed(user.token) });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ ok: true });
    expect((await securitySummary(user.token)).passkeys.map((passkey) => passkey.id)).toEqual([kept.passkeyId]);
    expectError(await app.request({ method: 'DELETE', url: `${API}/auth/passkeys/${removed.passkeyId}`, headers: authed(user.token) }), 404, 'not_found');

    const begun = await begin(user.token, { purpose: 'authenticate' });
    expect(begun.options.allowCredentials).toEqual([{ id: kept.credentialId, type: 'public-key', transports: ['internal'] }]);
    expectError(await finish(user.token, begun.id, authenticator.assert(removed.credentialId, begun.ceremony)), 400, 'invalid_passkey');
  });

  it('removing a passkey is a factor change: 403 mfa_required once the confirmation is older than the window, allowed again after a passkey assertion', async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { passkeyId, credentialId } = await registerPasskey(user.token, authenticator);
    app.clock.advance(11 * 60_000); // MFA_FRESH_MINUTES defaults to 10

    expectError(await app.request({ method: 'DELETE', url: `${API}/auth/passkeys/${passkeyId}`, headers: authed(user.token) }), 403, 'mfa_required');
    expectError(await post('/auth/passkeys/begin', user.token, { purpose: 'register' }), 403, 'mfa_required');
    expect(await passkeyRows(user.userId)).toHaveLength(1);

    const begun = await begin(user.token, { purpose: 'authenticate' });
    expect((await finish(user.token, begun.id, authenticator.assert(credentialId, begun.ceremony))).statusCode).toBe(200);
    expect((await app.request({ method: 'DELETE', url: `${API}/auth/passkeys/${passkeyId}`, headers: authed(user.token) })).statusCode).toBe(200);
  });
});

describe('SPEC "Authentication" 3 and 4: passkey routes are session only', () => {
  it('refuses API keys with 403 forbidden and missing or bad credentials with 401, storing nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const authenticator = new SoftwareAuthenticator();
    const { passkeyId } = await registerPasskey(owner.session.token, authenticator, 'Mine');
    const begun = await begin(owner.session.token, { purpose: 'register' });
    const before = await passkeyRows(owner.user.id);

    const calls = [
      { method: 'POST' as const, url: `${API}/auth/passkeys/begin`, payload: { purpose: 'register' } },
      { method: 'POST' as const, url: `${API}/auth/passkeys/finish/${begun.id}`, payload: { response: authenticator.register(begun.ceremony).response } },
      { method: 'PATCH' as const, url: `${API}/auth/passkeys/${passkeyId}`, payload: { name: 'Key' } },
      { method: 'DELETE' as const, url: `${API}/auth/passkeys/${passkeyId}` },
    ];
    for (const call of calls) {
      for (const key of [owner.key.token, readKey.token]) expectError(await app.request({ ...call, headers: authed(key) }), 403, 'forbidden');
      expectError(await app.request(call), 401, 'unauthorized');
      expectError(await app.request({ ...call, headers: authed('not-a-session') }), 401, 'unauthorized');
    }
    expect(await passkeyRows(owner.user.id)).toEqual(before);
    expect(await ceremonyCount(owner.user.id)).toBe(1);
  });
});
