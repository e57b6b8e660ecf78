import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../support/database.js';
import { requireOnboarded } from '../../src/accounts/index.js';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createSession } from '../support/factories.js';
import { newEmail, onboard, signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

const ONBOARDING = '/api/v1/onboarding';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Everything onboarding may write, to prove a refusal wrote nothing. */
async function snapshot() {
  return {
    merchants: await countRows(app.context.db, 'merchants'),
    grants: await countRows(app.context.db, 'grants'),
    identities: await countRows(app.context.db, 'identities'),
    idempotency: await countRows(app.context.db, 'idempotency_records'),
    onboarded: Number(
      (
        await app.context.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .where('onboarded_at', 'is not', null)
          .executeTakeFirstOrThrow()
      ).count,
    ),
  };
}

function post(token: string, payload: unknown, idempotencyKey: string | undefined = newIdempotencyKey()) {
  return app.request({ method: 'POST', url: ONBOARDING, headers: authed(token, idempotencyKey), payload: payload as Record<string, unknown> });
}

async function expectRefusal(token: string, payload: unknown, code: string) {
  const before = await snapshot();
  const response = await post(token, payload);
  expect(response.statusCode).toBe(400);
  expectErrorEnvelope(response.json(), code);
  expect(await snapshot()).toEqual(before);
}

describe('SPEC "Account" POST /onboarding: success', () => {
  it('creates the merchant and an owner grant, links the e-mail, answers 201 {completed: true} without a merchant id', async () => {
    const { token, userId } = await signInWithWallet(app);
    const shops = await countRows(app.context.db, 'shops');
    const response = await post(token, { name: '  Acme Widgets  ', email: 'Billing.Team@Example.COM' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ completed: true });

    const grants = await app.context.db
      .selectFrom('grants')
      .innerJoin('merchants', 'merchants.id', 'grants.merchant_id')
      .select(['merchants.name', 'grants.role', 'grants.shop_id'])
      .where('grants.user_id', '=', userId)
      .execute();
    expect(grants).toEqual([{ name: 'Acme Widgets', role: 'owner', shop_id: null }]);
    expect(await countRows(app.context.db, 'shops')).toBe(shops); // "not a shop"

    const email = await app.context.db
      .selectFrom('identities')
      .select(['user_id', 'subject', 'label'])
      .where('provider', '=', 'email')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(email).toEqual({ user_id: userId, subject: 'billing.team@example.com', label: 'Billing.Team@example.com' });

    const user = await app.context.db.selectFrom('users').select('onboarded_at').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(user.onboarded_at?.getTime()).toBe(app.clock.now().getTime());
  });

  it('accepts a name of exactly 100 characters (after trimming) and counts code points', async () => {
    const { token } = await signInWithWallet(app);
    expect((await post(token, { name: ` ${'n'.repeat(100)} `, email: newEmail() })).statusCode).toBe(201);
    const { token: other } = await signInWithWallet(app);
    expect((await post(other, { name: '🦄'.repeat(100), email: newEmail() })).statusCode).toBe(201);
  });

  it('accepts an e-mail of exactly 254 characters', async () => {
    const { token } = await signInWithWallet(app);
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect((await post(token, { name: 'Long Mail', email })).statusCode).toBe(201);
  });

  it('answers 200 {completed: true} to a repeat under a new key and changes nothing', async () => {
    const { token } = await signInWithWallet(app);
    expect((await onboard(app, token, 'First')).statusCode).toBe(201);
    const before = await snapshot();
    const repeat = await post(token, { name: 'Second', email: newEmail() });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toEqual({ completed: true });
    const after = await snapshot();
    expect({ ...after, idempotency: before.idempotency }).toEqual(before);
    const noEmail = await post(token, { name: 'Third' });
    expect(noEmail.statusCode).toBe(200);
  });

  it('needs no e-mail when the account already signs in by e-mail', async () => {
    const { token, userId } = await signInWithWallet(app);
    await app.context.db
      .insertInto('identities')
      .values({ id: newId(), user_id: userId, provider: 'email', subject: `${userId}@example.com`, label: `${userId}@example.com` })
      .execute();
    const response = await post(token, { name: 'Mail Co' });
    expect(response.statusCode).toBe(201);
  });

  it('accepts the account\'s own e-mail again, even on a disposable domain it already holds', async () => {
    const { token, userId } = await signInWithWallet(app);
    await app.context.db
      .insertInto('identities')
      .values({ id: newId(), user_id: userId, provider: 'email', subject: 'kept@mailinator.com', label: 'kept@mailinator.com' })
      .execute();
    const identities = await countRows(app.context.db, 'identities');
    const response = await post(token, { name: 'Kept', email: 'KEPT@mailinator.com' });
    expect(response.statusCode).toBe(201);
    expect(await countRows(app.context.db, 'identities')).toBe(identities);
  });

  it('makes one merchant of two concurrent onboardings under different keys', async () => {
    const { token, userId } = await signInWithWallet(app);
    const email = newEmail();
    const answers = await Promise.all([post(token, { name: 'Race', email }), post(token, { name: 'Race', email })]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 201]);
    const grants = await app.context.db.selectFrom('grants').select('id').where('user_id', '=', userId).execute();
    expect(grants).toHaveLength(1);
  });

  it('requireOnboarded refuses with onboarding_required until onboarding is complete', async () => {
    const { token, userId } = await signInWithWallet(app);
    await expect(requireOnboarded(app.context.db, userId)).rejects.toMatchObject({ code: 'onboarding_required' });
    await onboard(app, token);
    await expect(requireOnboarded(app.context.db, userId)).resolves.toBeUndefined();
    await expect(requireOnboarded(app.context.db, newId())).rejects.toMatchObject({ code: 'onboarding_required' });
  });
});

describe('SPEC "Account" POST /onboarding: refusals store nothing', () => {
  it.each([
    ['empty', ''],
    ['blank', '   \t '],
    ['101 characters', 'x'.repeat(101)],
    ['a number', 42],
    ['null', null],
    ['an object', { first: 'Acme' }],
  ])('refuses a name that is %s with 400 invalid_name', async (_label, name) => {
    const { token } = await signInWithWallet(app);
    await expectRefusal(token, { name, email: newEmail() }, 'invalid_name');
  });

  it('refuses a missing name with 400 invalid_name', async () => {
    const { token } = await signInWithWallet(app);
    await expectRefusal(token, { email: newEmail() }, 'invalid_name');
  });

  it('refuses a wallet-only account without e-mail: 400 email_required', async () => {
    const { token } = await signInWithWallet(app);
    await expectRefusal(token, { name: 'No Mail' }, 'email_required');
  });

  it.each([
    ['no @', 'billing.example.com'],
    ['no domain dot', 'billing@localhost'],
    ['two @', 'a@b@example.com'],
    ['empty local part', '@example.com'],
    ['a space inside', 'bill ing@example.com'],
    ['a double dot', 'bill..ing@example.com'],
    ['a leading-hyphen label', 'billing@-example.com'],
    ['a numeric top-level domain', 'billing@example.123'],
    ['an address literal', 'billing@[127.0.0.1]'],
    ['a local part over 64', `${'a'.repeat(65)}@example.com`],
    ['255 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`],
    ['empty', ''],
    ['a number', 7],
    ['null', null],
  ])('refuses an e-mail with %s: 400 invalid_email', async (_label, email) => {
    const { token } = await signInWithWallet(app);
    await expectRefusal(token, { name: 'Mail', email }, 'invalid_email');
  });

  it.each(['someone@mailinator.com', 'SOMEONE@Mailinator.COM', 'someone@inbox.mailinator.com', 'x@yopmail.com'])(
    'refuses the disposable address %s with 400 disposable_email',
    async (email) => {
      const { token } = await signInWithWallet(app);
      await expectRefusal(token, { name: 'Throwaway', email }, 'disposable_email');
    },
  );

  it('refuses an e-mail that is a sign-in method of another account: 400 identity_already_linked', async () => {
    const first = await signInWithWallet(app);
    const email = newEmail();
    expect((await onboard(app, first.token, 'First', email)).statusCode).toBe(201);
    const second = await signInWithWallet(app);
    await expectRefusal(second.token, { name: 'Second', email: email.toUpperCase() }, 'identity_already_linked');
  });

  it('refuses unknown fields with invalid_json and a non-JSON body with json_content_type_required', async () => {
    const { token } = await signInWithWallet(app);
    await expectRefusal(token, { name: 'Acme', email: newEmail(), merchant_id: newId() }, 'invalid_json');
    const form = await app.request({
      method: 'POST',
      url: ONBOARDING,
      headers: { ...authed(token, newIdempotencyKey()), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Acme',
    });
    expect(form.statusCode).toBe(400);
    expect(form.json().error.code).toBe('json_content_type_required');
  });

  it('answers 401 without a credential and 401 to an expired session', async () => {
    expect((await app.request({ method: 'POST', url: ONBOARDING, payload: { name: 'Anon' } })).statusCode).toBe(401);
    const { userId } = await signInWithWallet(app);
    const stale = await createSession(app.context.db, userId, { expiresAt: new Date(app.clock.now().getTime() - 1) });
    const response = await post(stale.token, { name: 'Stale', email: newEmail() });
    expect(response.statusCode).toBe(401);
  });
});

describe('SPEC "Authentication" 7: Idempotency-Key on POST /onboarding', () => {
  it('replays the stored 201 for the same key and body, and creates nothing more', async () => {
    const { token } = await signInWithWallet(app);
    const key = newIdempotencyKey();
    const payload = { name: 'Replay', email: newEmail() };
    const first = await post(token, payload, key);
    expect(first.statusCode).toBe(201);
    const before = await snapshot();
    const replay = await post(token, { email: payload.email, name: payload.name }, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.json()).toEqual({ completed: true });
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 idempotency_conflict to the same key with a different body', async () => {
    const { token } = await signInWithWallet(app);
    const key = newIdempotencyKey();
    const email = newEmail();
    expect((await post(token, { name: 'One', email }, key)).statusCode).toBe(201);
    const before = await snapshot();
    const conflict = await post(token, { name: 'Two', email }, key);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: { code: 'idempotency_conflict', message: 'idempotency_conflict' } });
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['129 bytes', 'k'.repeat(129)],
    ['128 bytes of multibyte characters plus one', `${'é'.repeat(64)}k`],
  ])('answers 400 idempotency_key_required when the key is %s, storing nothing', async (_label, key) => {
    const { token } = await signInWithWallet(app);
    const before = await snapshot();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (key !== undefined) headers['idempotency-key'] = key;
    const response = await app.request({ method: 'POST', url: ONBOARDING, headers, payload: { name: 'Keyless', email: newEmail() } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'idempotency_key_required', message: 'idempotency_key_required', details: { field: 'Idempotency-Key', reason: expect.any(String) } },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('accepts a key of exactly 128 bytes', async () => {
    const { token } = await signInWithWallet(app);
    expect((await post(token, { name: 'Long Key', email: newEmail() }, 'k'.repeat(128))).statusCode).toBe(201);
  });

  it('does not store refusals: the same key succeeds once the input is corrected', async () => {
    const { token } = await signInWithWallet(app);
    const key = newIdempotencyKey();
    expect((await post(token, { name: '', email: newEmail() }, key)).statusCode).toBe(400);
    expect((await post(token, { name: 'Fixed', email: newEmail() }, key)).statusCode).toBe(201);
  });
});
