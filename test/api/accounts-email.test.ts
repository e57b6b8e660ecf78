import type { FastifyBaseLogger } from 'fastify';
import { countRows } from '../support/database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { logTransport } from '../../src/platform/mail/mail.js';
import { SendMailJob } from '../../src/platform/mail/send-mail.job.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { latestCode, startMailCatcher, type MailCatcher } from '../support/mail-catcher.js';
import { newEmail, onboard, signInWithWallet } from '../support/wallet.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10, item 1; SPEC "Sign-in" POST /auth/email/start and /auth/email/verify,
// end to end: the mail worker sends through a real SMTP server on loopback and
// the code is read out of the message it received.

const START = '/api/v1/auth/email/start';
const VERIFY = '/api/v1/auth/email/verify';
const MINUTE = 60_000;

let catcher: MailCatcher;
let app: TestApp;
beforeAll(async () => {
  catcher = await startMailCatcher();
  app = await createTestApp({ SMTP_URL: catcher.url });
});
afterAll(async () => {
  await app.close();
  await catcher.close();
});

/** Everything the ceremony may write, to prove that a refusal wrote nothing. */
async function snapshot() {
  return {
    challenges: await countRows(app.context.db, 'email_challenges'),
    mail: await countRows(app.context.db, 'mail_outbox'),
    users: await countRows(app.context.db, 'users'),
    identities: await countRows(app.context.db, 'identities'),
    sessions: await countRows(app.context.db, 'sessions'),
    attempts: (await app.context.db.selectFrom('email_challenges').select('attempts').orderBy('id').execute()).map((row) => row.attempts),
  };
}

function start(payload: unknown) {
  return app.request({ method: 'POST', url: START, payload: payload as Record<string, unknown> });
}

function verify(payload: unknown) {
  return app.request({ method: 'POST', url: VERIFY, payload: payload as Record<string, unknown> });
}

/** Starts, lets the mail worker send, and reads the code out of the message received. */
async function startAndReceive(email: string): Promise<{ challengeId: string; code: string }> {
  const started = await start({ email });
  expect(started.statusCode, started.body).toBe(200);
  await app.jobs.drain();
  const code = latestCode(catcher, email.toLowerCase().replace(/@(.*)$/, (_all, domain: string) => `@${domain}`));
  if (code === undefined) throw new Error(`no code arrived for ${email}`);
  return { challengeId: started.json<{ challenge_id: string }>().challenge_id, code };
}

/** A code that is not `code`. */
function wrong(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

function expectError(response: { statusCode: number; json: () => unknown }, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expectErrorEnvelope(response.json(), code);
}

describe('SPEC "Sign-in" e-mail code: success', () => {
  it('start answers {challenge_id}; the worker sends the code by SMTP; verify answers {token, expires_at, csrf, user}', async () => {
    const email = newEmail();
    const started = await start({ email });
    expect(started.statusCode).toBe(200);
    expect(Object.keys(started.json())).toEqual(['challenge_id']);
    const challengeId = started.json<{ challenge_id: string }>().challenge_id;

    // ARCHITECTURE rule 1: nothing was sent inside the request, a row waits for the worker.
    expect(catcher.messages.filter((mail) => mail.to.includes(email))).toEqual([]);
    const row = await app.context.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');

    await app.jobs.drain();
    const received = catcher.messages.filter((mail) => mail.to.includes(email));
    expect(received).toHaveLength(1);
    expect(received[0]?.from).toBe('no-reply@ivory.test');
    expect(received[0]?.raw).toMatch(/Subject: Your Ivory sign-in code/);
    const code = latestCode(catcher, email);
    expect(code).toMatch(/^\d{6}$/);

    const sent = await app.context.db.selectFrom('mail_outbox').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, body_sealed: null });

    const response = await verify({ challenge_id: challengeId, code });
    expect(response.statusCode).toBe(200);
    const session = response.json<{ token: string; expires_at: string; csrf: string; user: Record<string, unknown> }>();
    expect(Object.keys(session).sort()).toEqual(['csrf', 'expires_at', 'token', 'user']);
    expect(session.user).toEqual({ user_id: expect.any(String), onboarding_required: true, mfa_required: false, mfa_at: null });
    expect(new Date(session.expires_at).getTime()).toBeGreaterThan(app.clock.now().getTime());
    expect(response.headers['set-cookie']).toBeUndefined();

    const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(session.token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ user: session.user, csrf: session.csrf });

    // "An unknown address creates the account": one user, with the address as its e-mail identity.
    const identities = await app.context.db.selectFrom('identities').select(['provider', 'subject', 'label']).where('user_id', '=', session.user.user_id as string).execute();
    expect(identities).toEqual([{ provider: 'email', subject: email, label: email }]);
  });

  it('signs the same address in to the same account every time, whatever its case', async () => {
    const email = newEmail();
    const first = await startAndReceive(email);
    const one = (await verify({ challenge_id: first.challengeId, code: first.code })).json<{ user: { user_id: string } }>();
    const upper = email.replace(/^[^@]+/, (local) => local.toUpperCase());
    const started = await start({ email: upper });
    await app.jobs.drain();
    const code = latestCode(catcher, upper);
    const two = (await verify({ challenge_id: started.json().challenge_id, code })).json<{ user: { user_id: string } }>();
    expect(two.user.user_id).toBe(one.user.user_id);
    expect(await app.context.db.selectFrom('identities').select('id').where('subject', '=', email).execute()).toHaveLength(1);
  });

  it('stores neither the code nor a plain hash of it; the queued mail body is sealed', async () => {
    const email = newEmail();
    const started = await start({ email });
    const challenge = await app.context.db.selectFrom('email_challenges').selectAll().where('id', '=', started.json().challenge_id).executeTakeFirstOrThrow();
    const mail = await app.context.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
    await app.jobs.drain();
    const code = latestCode(catcher, email) ?? '';
    const { createHash } = await import('node:crypto');
    expect(JSON.stringify(challenge)).not.toContain(code);
    expect(challenge.code_digest).not.toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(mail)).not.toContain(code);
    expect(challenge.expires_at.getTime() - challenge.created_at.getTime()).toBe(10 * MINUTE);
  });

  it('"the address given at onboarding is a sign-in method of the same account"', async () => {
    const { token, userId } = await signInWithWallet(app);
    const email = newEmail();
    expect((await onboard(app, token, 'Wallet first', email)).statusCode).toBe(201);

    const { challengeId, code } = await startAndReceive(email);
    const response = await verify({ challenge_id: challengeId, code });
    expect(response.statusCode).toBe(200);
    expect(response.json().user).toMatchObject({ user_id: userId, onboarding_required: false });
  });

  it('lets an existing account on a disposable domain sign in (refused only for addresses with no account)', async () => {
    const { userId } = await signInWithWallet(app);
    const email = `kept-${newId().slice(0, 8)}@mailinator.com`;
    await app.context.db.insertInto('identities').values({ id: newId(), user_id: userId, provider: 'email', subject: email, label: email }).execute();
    const { challengeId, code } = await startAndReceive(email);
    const response = await verify({ challenge_id: challengeId, code });
    expect(response.statusCode).toBe(200);
    expect(response.json().user.user_id).toBe(userId);
  });

  it('POST /auth/logout ends an e-mail session: the token stops working', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    const { token } = (await verify({ challenge_id: challengeId, code })).json<{ token: string }>();
    const logout = await app.request({ method: 'POST', url: '/api/v1/auth/logout', headers: authed(token) });
    expect(logout.statusCode).toBe(200);
    expect(logout.json()).toEqual({ ok: true });
    expectError(await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) }), 401, 'unauthorized');
    expectError(await app.request({ method: 'GET', url: '/api/v1/profile', headers: authed(token) }), 401, 'unauthorized');
  });
});

describe('SPEC "Sign-in" e-mail code: a code is single-use, short-lived, limited in attempts', () => {
  it('refuses a used code with 401 unauthorized and opens no second session', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    expect((await verify({ challenge_id: challengeId, code })).statusCode).toBe(200);
    const before = await snapshot();
    expectError(await verify({ challenge_id: challengeId, code }), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });

  it('kills the challenge after 5 wrong codes: the right code is then refused too', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const before = await snapshot();
      expectError(await verify({ challenge_id: challengeId, code: wrong(code) }), 401, 'unauthorized');
      const after = await snapshot();
      expect({ ...after, attempts: [] }).toEqual({ ...before, attempts: [] }); // only the count moved
    }
    const row = await app.context.db.selectFrom('email_challenges').select('attempts').where('id', '=', challengeId).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(5);
    const before = await snapshot();
    expectError(await verify({ challenge_id: challengeId, code }), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });

  it('still accepts the right code after 4 wrong ones', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await verify({ challenge_id: challengeId, code: wrong(code) })).statusCode).toBe(401);
    }
    expect((await verify({ challenge_id: challengeId, code })).statusCode).toBe(200);
  });

  it('counts malformed guesses as wrong codes', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    for (const guess of ['', '12345', '1234567', 'abcdef', ` ${code}`]) {
      expectError(await verify({ challenge_id: challengeId, code: guess }), 401, 'unauthorized');
    }
    expectError(await verify({ challenge_id: challengeId, code }), 401, 'unauthorized');
  });

  it('counts concurrent wrong guesses exactly: 12 at once leave the challenge dead at 5', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    const answers = await Promise.all(Array.from({ length: 12 }, () => verify({ challenge_id: challengeId, code: wrong(code) })));
    expect(answers.every((answer) => answer.statusCode === 401)).toBe(true);
    const row = await app.context.db.selectFrom('email_challenges').select('attempts').where('id', '=', challengeId).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(5);
    expect((await verify({ challenge_id: challengeId, code })).statusCode).toBe(401);
  });

  it('opens one session of two concurrent verifications with the right code', async () => {
    const { challengeId, code } = await startAndReceive(newEmail());
    const answers = await Promise.all([verify({ challenge_id: challengeId, code }), verify({ challenge_id: challengeId, code })]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
  });

  it('accepts a code until 10 minutes have passed, and refuses it from then on', async () => {
    const early = await startAndReceive(newEmail());
    app.clock.advance(10 * MINUTE - 1_000);
    expect((await verify({ challenge_id: early.challengeId, code: early.code })).statusCode).toBe(200);

    const late = await startAndReceive(newEmail());
    app.clock.advance(10 * MINUTE);
    const before = await snapshot();
    expectError(await verify({ challenge_id: late.challengeId, code: late.code }), 401, 'unauthorized');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses an unknown or malformed challenge_id, and missing or mistyped fields, with 401, storing nothing', async () => {
    const { code } = await startAndReceive(newEmail());
    const cases: unknown[] = [
      { challenge_id: newId(), code },
      { challenge_id: 'not-a-uuid', code },
      { challenge_id: `${newId()}'--`, code },
      { code },
      { challenge_id: newId() },
      {},
      { challenge_id: 42, code },
      { challenge_id: newId(), code: 123456 },
      { challenge_id: null, code: null },
    ];
    for (const payload of cases) {
      const before = await snapshot();
      expectError(await verify(payload), 401, 'unauthorized');
      expect(await snapshot(), JSON.stringify(payload)).toEqual(before);
    }
  });

  it('answers invalid_json to unknown fields and malformed bodies, json_content_type_required to other types, storing nothing', async () => {
    const before = await snapshot();
    expectError(await verify({ challenge_id: newId(), code: '123456', user_id: newId() }), 400, 'invalid_json');
    expectError(await start({ email: newEmail(), admin: true }), 400, 'invalid_json');
    expectError(await app.request({ method: 'POST', url: START, headers: { 'content-type': 'application/json' }, payload: '{"email":' }), 400, 'invalid_json');
    expectError(await app.request({ method: 'POST', url: START, headers: { 'content-type': 'text/plain' }, payload: 'a@example.com' }), 400, 'json_content_type_required');
    expect(await snapshot()).toEqual(before);
  });
});

describe('SPEC "Errors" on POST /auth/email/start', () => {
  it('answers 400 invalid_email to a malformed address, storing nothing', async () => {
    const cases: unknown[] = [
      {},
      { email: '' },
      { email: 'nope' },
      { email: '@example.com' },
      { email: 'a@b' },
      { email: 'a b@example.com' },
      { email: 'a@exa_mple.com' },
      { email: `${'a'.repeat(65)}@example.com` },
      { email: `a@${'b'.repeat(250)}.com` },
      { email: 'x'.repeat(5000) },
      { email: 42 },
      { email: null },
      { email: ['a@example.com'] },
    ];
    for (const payload of cases) {
      const before = await snapshot();
      expectError(await start(payload), 400, 'invalid_email');
      expect(await snapshot(), JSON.stringify(payload)).toEqual(before);
    }
  });

  it('answers 400 disposable_email to a throw-away domain with no account, storing nothing', async () => {
    for (const email of ['someone@mailinator.com', 'Someone@MAILINATOR.COM', 'x@sub.mailinator.com']) {
      const before = await snapshot();
      expectError(await start({ email }), 400, 'disposable_email');
      expect(await snapshot()).toEqual(before);
    }
  });

  it('throttles starts per address: the 6th in 15 minutes is 429 rate_limited with Retry-After, storing nothing', async () => {
    const email = newEmail();
    for (let index = 0; index < 5; index += 1) {
      expect((await start({ email: index % 2 === 0 ? email : email.toUpperCase() })).statusCode).toBe(200);
      app.clock.advance(MINUTE);
    }
    const before = await snapshot();
    const refused = await start({ email });
    expectError(refused, 429, 'rate_limited');
    // The oldest start leaves the window 15 minutes after it was made: 10 minutes from now.
    expect(refused.headers['retry-after']).toBe(String(10 * 60));
    expect(await snapshot()).toEqual(before);

    // Another address is not held back.
    expect((await start({ email: newEmail() })).statusCode).toBe(200);

    app.clock.advance(10 * MINUTE + 1_000);
    expect((await start({ email })).statusCode).toBe(200);
    expectError(await start({ email }), 429, 'rate_limited');
  });

  it('lets at most 5 of 10 concurrent starts for one address through', async () => {
    const email = newEmail();
    const answers = await Promise.all(Array.from({ length: 10 }, () => start({ email })));
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(5);
    expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(5);
    expect(await app.context.db.selectFrom('email_challenges').select('id').where('subject', '=', email).execute()).toHaveLength(5);
  });
});

describe('The mail worker (ARCHITECTURE rules 1 and 4)', () => {
  it('retries a message the SMTP server refused, with back-off, from the row', async () => {
    await app.jobs.drain(); // mail left by earlier tests must not take the refusals
    const email = newEmail();
    const started = await start({ email });
    catcher.refuseNext(2);
    await app.jobs.drain();
    const row = () => app.context.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
    const first = await row();
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.last_error).toMatch(/451/);
    // 10 s ± 20 % later, not before.
    const wait = (first.next_attempt_at?.getTime() ?? 0) - app.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(8_000);
    expect(wait).toBeLessThanOrEqual(12_000);
    await app.jobs.drain();
    expect((await row()).attempts).toBe(1);

    app.clock.advance(12_001);
    await app.jobs.drain();
    expect(await row()).toMatchObject({ status: 'pending', attempts: 2 });
    app.clock.advance(36_001);
    await app.jobs.drain();
    expect(await row()).toMatchObject({ status: 'sent', attempts: 3, body_sealed: null });

    const code = latestCode(catcher, email);
    expect((await verify({ challenge_id: started.json().challenge_id, code })).statusCode).toBe(200);
  });

  it('gives up a code mail once the code has expired, and erases its body', async () => {
    await app.jobs.drain();
    const email = newEmail();
    await start({ email });
    catcher.refuseNext(1);
    await app.jobs.drain();
    catcher.refuseNext(0);
    app.clock.advance(10 * MINUTE);
    await app.jobs.drain();
    const row = await app.context.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', body_sealed: null, next_attempt_at: null });
    expect(catcher.messages.filter((mail) => mail.to.includes(email))).toEqual([]);
  });

  it('two workers over the same rows send each message once (claims skip locked rows)', async () => {
    await app.jobs.drain();
    const emails = Array.from({ length: 6 }, () => newEmail());
    for (const email of emails) expect((await start({ email })).statusCode).toBe(200);
    const sent: string[] = [];
    const log = { info: () => {}, warn: () => {}, error: () => {} } as unknown as FastifyBaseLogger;
    const worker = () =>
      new SendMailJob({
        db: app.context.db,
        clock: app.clock,
        secrets: app.context.secrets,
        transport: { send: async (message) => void sent.push(message.to) },
        log,
      });
    const [one, two] = [worker(), worker()];
    await Promise.all([one.run(), two.run(), one.run(), two.run()]);
    expect(sent.sort()).toEqual([...emails].sort());
    const rows = await app.context.db.selectFrom('mail_outbox').select(['status', 'attempts']).where('recipient', 'in', emails).execute();
    expect(rows.every((row) => row.status === 'sent' && row.attempts === 1)).toBe(true);
  });

  it('without SMTP_URL, logs the message at info level so that a local user can sign in', async () => {
    const email = newEmail();
    const started = await start({ email });
    const logged: { level: string; object: unknown; message: string }[] = [];
    const log = {
      info: (object: unknown, message: string) => logged.push({ level: 'info', object, message }),
      warn: () => {},
      error: () => {},
    } as unknown as FastifyBaseLogger;
    // A second worker over the same rows, with the transport an app without SMTP_URL gets.
    const worker = new SendMailJob({ db: app.context.db, clock: app.clock, secrets: app.context.secrets, transport: logTransport(log), log });
    expect(await worker.run()).toBeGreaterThanOrEqual(1);
    const entry = logged.find((line) => JSON.stringify(line.object).includes(email));
    expect(entry?.level).toBe('info');
    const code = /sign-in code is (\d{6})/.exec(JSON.stringify(entry?.object))?.[1];
    expect((await verify({ challenge_id: started.json().challenge_id, code })).statusCode).toBe(200);
  });
});
