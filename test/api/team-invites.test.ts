import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { countRows } from '../support/database.js';
import { createApiKey, createMerchant, createOwnerWithShop, createShop } from '../support/factories.js';
import { latestCode, startMailCatcher, type MailCatcher } from '../support/mail-catcher.js';
import { ADMIN_TOKEN, admin } from './admin-helpers.js';
import { member } from './merchants-helpers.js';

// Issue 11, item 2; SPEC "Merchants and team", "Team", "Authentication" 3, 7, 8,
// "Limits" (team). End to end: invitation mail through the mail worker and a
// real SMTP server, the invitee signs in by e-mail code and accepts.

const DAY = 24 * 60 * 60 * 1000;

let catcher: MailCatcher;
let app: TestApp;
beforeAll(async () => {
  catcher = await startMailCatcher();
  app = await createTestApp({ SMTP_URL: catcher.url, ADMIN_TOKEN });
});
afterAll(async () => {
  await app.close();
  await catcher.close();
});

type Owner = Awaited<ReturnType<typeof createOwnerWithShop>>;

let counter = 0;
function newAddress(): string {
  counter += 1;
  return `invitee-${process.pid}-${Date.now()}-${counter}@example.com`;
}

function invite(token: string, merchantId: string, payload: unknown, key = newIdempotencyKey()): Promise<LightMyRequestResponse> {
  return app.request({
    method: 'POST',
    url: `/api/v1/merchants/${merchantId}/invites`,
    headers: { ...authed(token, key), 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
}

function accept(token: string, invitationId: string, key = newIdempotencyKey()): Promise<LightMyRequestResponse> {
  return app.request({ method: 'POST', url: `/api/v1/invites/${invitationId}/accept`, headers: authed(token, key) });
}

function team(token: string, merchantId: string): Promise<LightMyRequestResponse> {
  return app.request({ method: 'GET', url: `/api/v1/merchants/${merchantId}/team`, headers: authed(token) });
}

function revoke(token: string, merchantId: string, invitationId: string, key = newIdempotencyKey()): Promise<LightMyRequestResponse> {
  return app.request({ method: 'DELETE', url: `/api/v1/merchants/${merchantId}/invites/${invitationId}`, headers: authed(token, key) });
}

function removeGrant(token: string, merchantId: string, grantId: string, key = newIdempotencyKey()): Promise<LightMyRequestResponse> {
  return app.request({ method: 'DELETE', url: `/api/v1/merchants/${merchantId}/grants/${grantId}`, headers: authed(token, key) });
}

function get(token: string, path: string): Promise<LightMyRequestResponse> {
  return app.request({ method: 'GET', url: `/api/v1${path}`, headers: authed(token) });
}

function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json<{ error: { code: string } }>().error.code).toBe(code);
}

/** The invitation id in the latest mail received for `address`, after the mail worker ran. */
async function receivedInvitation(address: string): Promise<string> {
  await app.jobs.drain();
  const message = catcher.messages.filter((mail) => mail.to.includes(address)).at(-1);
  const id = message === undefined ? undefined : /\/dashboard\/invites\/([0-9a-f-]{36})\s/.exec(message.raw.replace(/=\r?\n/g, ''))?.[1];
  if (id === undefined) throw new Error(`no invitation arrived for ${address}`);
  return id;
}

/** SPEC "Sign-in": e-mail code sign-in through the real mail worker; returns the session token. */
async function signInByEmail(address: string): Promise<string> {
  const started = await app.request({ method: 'POST', url: '/api/v1/auth/email/start', payload: { email: address } });
  expect(started.statusCode, started.body).toBe(200);
  await app.jobs.drain();
  const code = latestCode(catcher, address);
  if (code === undefined) throw new Error(`no code arrived for ${address}`);
  const verified = await app.request({
    method: 'POST',
    url: '/api/v1/auth/email/verify',
    payload: { challenge_id: started.json<{ challenge_id: string }>().challenge_id, code },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json<{ token: string }>().token;
}

/** Invite `address`, receive the mail, sign in as that address and accept: the invitee's token and grant. */
async function join(owner: Owner, payload: { role: string; shop_id: string | null }, address = newAddress()) {
  const invited = await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, ...payload });
  expect(invited.statusCode, invited.body).toBe(201);
  const invitationId = await receivedInvitation(address);
  const token = await signInByEmail(address);
  const accepted = await accept(token, invitationId);
  expect(accepted.statusCode, accepted.body).toBe(200);
  return { token, address, invitationId, grant: accepted.json<{ grant: { id: string; role: string; shop_id: string | null } }>().grant };
}

async function stored() {
  return {
    invitations: await countRows(app.context.db, 'invitations'),
    grants: await countRows(app.context.db, 'grants'),
    mail: await countRows(app.context.db, 'mail_outbox'),
  };
}

describe('SPEC "Merchants and team": an invitation end to end', () => {
  it('an owner invites an address to one shop; the mail with the accept link arrives by SMTP; the invitee signs in by e-mail code, accepts and has exactly that access', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const otherShop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const address = newAddress();

    const invited = await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'developer', shop_id: owner.shop.id });
    expect(invited.statusCode, invited.body).toBe(201);
    const invitation = invited.json<{ id: string }>();
    expect(invitation).toEqual({
      id: expect.any(String),
      merchant_id: owner.merchant.id,
      provider: 'email',
      subject: address,
      role: 'developer',
      shop_id: owner.shop.id,
      status: 'pending',
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    // ARCHITECTURE rule 1: queued in the request, sent by the worker.
    expect(catcher.messages.filter((mail) => mail.to.includes(address))).toEqual([]);
    expect(await receivedInvitation(address)).toBe(invitation.id);
    const mail = catcher.messages.filter((message) => message.to.includes(address)).at(-1);
    expect(mail?.raw.replace(/=\r?\n/g, '')).toMatch(/as developer/);

    const token = await signInByEmail(address);
    const accepted = await accept(token, invitation.id);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({
      merchant_id: owner.merchant.id,
      grant: { id: expect.any(String), user_id: expect.any(String), email: address, role: 'developer', shop_id: owner.shop.id, created_at: expect.any(String) },
    });

    // Exactly that access: the shop as developer, not the merchant's other shop, not administration.
    expect((await get(token, `/shops/${owner.shop.id}`)).statusCode).toBe(200);
    expect((await get(token, `/shops/${owner.shop.id}/keys`)).statusCode).toBe(200);
    expectError(
      await app.request({ method: 'PATCH', url: `/api/v1/shops/${owner.shop.id}`, headers: { ...authed(token, newIdempotencyKey()), 'content-type': 'application/json' }, payload: '{}' }),
      403,
      'forbidden',
    );
    expectError(await get(token, `/shops/${otherShop.id}`), 404, 'shop_not_found');
    expectError(await team(token, owner.merchant.id), 403, 'forbidden');
    const merchants = await get(token, '/merchants');
    expect(merchants.json()).toEqual([expect.objectContaining({ id: owner.merchant.id, role: 'developer' })]);
    const me = await get(token, '/me');
    expect(me.json<{ user: { onboarding_required: boolean } }>().user.onboarding_required).toBe(false);

    // The owner sees the new member and no pending invitation.
    const listed = await team(owner.session.token, owner.merchant.id);
    expect(listed.statusCode).toBe(200);
    const body = listed.json<{ grants: { email: string | null; role: string; shop_id: string | null }[]; invitations: unknown[] }>();
    expect(body.invitations).toEqual([]);
    expect(body.grants).toHaveLength(2);
    expect(body.grants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: owner.user.id, role: 'owner', shop_id: null }),
        expect.objectContaining({ email: address, role: 'developer', shop_id: owner.shop.id }),
      ]),
    );
  });

  it('an invitation is single-use: accepting again (new Idempotency-Key) is 404 not_found and writes nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const joined = await join(owner, { role: 'viewer', shop_id: null });
    const before = await stored();
    expectError(await accept(joined.token, joined.invitationId), 404, 'not_found');
    expect(await stored()).toEqual(before);
  });

  it('a merchant-wide viewer reads every shop of the merchant and changes nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const otherShop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const viewer = await join(owner, { role: 'viewer', shop_id: null });
    expect(viewer.grant).toMatchObject({ role: 'viewer', shop_id: null });
    expect((await get(viewer.token, `/shops/${owner.shop.id}`)).statusCode).toBe(200);
    expect((await get(viewer.token, `/shops/${otherShop.id}`)).statusCode).toBe(200);
    expectError(await get(viewer.token, `/shops/${owner.shop.id}/keys`), 403, 'forbidden');
  });

  it('only the signed-in owner of the invited address may accept: another account is 403 forbidden and gets nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    expect((await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'owner', shop_id: null })).statusCode).toBe(201);
    const invitationId = await receivedInvitation(address);
    const intruder = await signInByEmail(newAddress());
    const before = await stored();
    expectError(await accept(intruder, invitationId), 403, 'forbidden');
    expect(await stored()).toEqual(before);
    // The invitation is still pending for its addressee.
    expect((await accept(await signInByEmail(address), invitationId)).statusCode).toBe(200);
  });

  it('the subject is matched without regard to case, as the e-mail sign-in matches it', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    const shouted = address.replace(/^invitee/, 'INVITEE');
    expect((await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: shouted, role: 'viewer', shop_id: null })).statusCode).toBe(201);
    const invitationId = await receivedInvitation(shouted);
    expect((await accept(await signInByEmail(address), invitationId)).statusCode).toBe(200);
  });
});

describe('SPEC "Authentication" 7: invites and acceptance are idempotent', () => {
  it('the same Idempotency-Key and body replays the stored invitation (one row, one mail); a different body is 409 idempotency_conflict', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    const key = newIdempotencyKey();
    const payload = { provider: 'email', subject: address, role: 'viewer', shop_id: null };
    const first = await invite(owner.session.token, owner.merchant.id, payload, key);
    const before = await stored();
    const again = await invite(owner.session.token, owner.merchant.id, payload, key);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await stored()).toEqual(before);
    expectError(await invite(owner.session.token, owner.merchant.id, { ...payload, role: 'owner' }, key), 409, 'idempotency_conflict');
    expect(await stored()).toEqual(before);
    expectError(await app.request({ method: 'POST', url: `/api/v1/merchants/${owner.merchant.id}/invites`, headers: authed(owner.session.token), payload }), 400, 'idempotency_key_required');
  });

  it('accepting twice with the same Idempotency-Key returns the stored answer', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: owner.shop.id });
    const invitationId = await receivedInvitation(address);
    const token = await signInByEmail(address);
    const key = newIdempotencyKey();
    const first = await accept(token, invitationId, key);
    expect(first.statusCode).toBe(200);
    const again = await accept(token, invitationId, key);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
  });

  it('inviting the same address to the same scope again supersedes the pending invitation: the old link stops working, the team counts it once', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: null });
    const old = await receivedInvitation(address);
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'developer', shop_id: null });
    const fresh = await receivedInvitation(address);
    expect(fresh).not.toBe(old);
    const listed = team(owner.session.token, owner.merchant.id);
    expect((await listed).json<{ invitations: { id: string }[] }>().invitations.map((row) => row.id)).toEqual([fresh]);
    const token = await signInByEmail(address);
    expectError(await accept(token, old), 404, 'not_found');
    expect((await accept(token, fresh)).json<{ grant: { role: string } }>().grant.role).toBe('developer');
  });
});

describe('SPEC "Merchants and team": what an invitation may name', () => {
  it('refuses a bad provider, subject or role with the exact code and stores nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const base = { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null };
    const before = await stored();
    const cases: [unknown, string][] = [
      [{ ...base, provider: 'google' }, 'invalid_request'],
      [{ ...base, subject: 'not-an-address' }, 'invalid_email'],
      [{ ...base, subject: 'a@b' }, 'invalid_email'],
      [{ ...base, subject: 42 }, 'invalid_email'],
      [{ ...base, subject: `someone-${counter}@mailinator.com` }, 'disposable_email'],
      [{ ...base, role: 'admin' }, 'invalid_request'],
      [{ provider: 'email', subject: base.subject, role: 'viewer' }, 'invalid_request'],
      [{ ...base, extra: true }, 'invalid_json'],
    ];
    for (const [payload, code] of cases) expectError(await invite(owner.session.token, owner.merchant.id, payload), 400, code);
    expect(await stored()).toEqual(before);
  });

  it("a shop that is not the merchant's, unknown or archived is refused (shop_not_found / shop_archived) and never widens to merchant-wide", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    // The same person owns a second merchant: its shop is still not this merchant's.
    const secondMerchant = await createMerchant(app.context.db, owner.user.id);
    const secondShop = await createShop(app.context.db, secondMerchant.id, { sandbox: false });
    const stranger = await createOwnerWithShop(app.context.db);
    const archived = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', archived.id).execute();
    const before = await stored();
    const base = { provider: 'email', subject: newAddress(), role: 'owner' };
    for (const shopId of [secondShop.id, stranger.shop.id, newId(), 'not-a-uuid']) {
      expectError(await invite(owner.session.token, owner.merchant.id, { ...base, shop_id: shopId }), 404, 'shop_not_found');
    }
    expectError(await invite(owner.session.token, owner.merchant.id, { ...base, shop_id: archived.id }), 400, 'shop_archived');
    expect(await stored()).toEqual(before);
  });

  it('a shop archived after the invitation is refused at accepting (shop_archived), with no grant written', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const shop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'owner', shop_id: shop.id });
    const invitationId = await receivedInvitation(address);
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', shop.id).execute();
    const token = await signInByEmail(address);
    const before = await stored();
    expectError(await accept(token, invitationId), 400, 'shop_archived');
    expect(await stored()).toEqual(before);
  });
});

describe('SPEC "Merchants and team": revoking and removing', () => {
  it('DELETE …/invites/{id} revokes a pending invitation: it cannot be accepted, leaves the team list, and cannot be revoked twice', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: null });
    const invitationId = await receivedInvitation(address);
    const revoked = await revoke(owner.session.token, owner.merchant.id, invitationId);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ id: invitationId, status: 'revoked' });
    expect((await team(owner.session.token, owner.merchant.id)).json<{ invitations: unknown[] }>().invitations).toEqual([]);
    expectError(await revoke(owner.session.token, owner.merchant.id, invitationId), 404, 'not_found');
    const grants = await countRows(app.context.db, 'grants');
    expectError(await accept(await signInByEmail(address), invitationId), 404, 'not_found');
    expect(await countRows(app.context.db, 'grants')).toBe(grants);
  });

  it('an invitation expires after 7 days: accepting it is 404 not_found', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: null });
    const invitationId = await receivedInvitation(address);
    const token = await signInByEmail(address);
    const start = app.clock.now();
    app.clock.advance(7 * DAY + 1000);
    const grants = await countRows(app.context.db, 'grants');
    try {
      expectError(await accept(token, invitationId), 404, 'not_found');
    } finally {
      // The factories' sessions expire by the wall clock: later tests need it back.
      app.clock.set(start);
    }
    expect(await countRows(app.context.db, 'grants')).toBe(grants);
  });

  it('DELETE …/grants/{id} removes access at once; unknown grants are 404 not_found', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const joined = await join(owner, { role: 'developer', shop_id: null });
    expect((await get(joined.token, `/shops/${owner.shop.id}`)).statusCode).toBe(200);
    const removed = await removeGrant(owner.session.token, owner.merchant.id, joined.grant.id);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ ok: true });
    expectError(await get(joined.token, `/shops/${owner.shop.id}`), 404, 'shop_not_found');
    expectError(await removeGrant(owner.session.token, owner.merchant.id, joined.grant.id), 404, 'not_found');
    expectError(await removeGrant(owner.session.token, owner.merchant.id, 'nope'), 404, 'not_found');
  });

  it('the last merchant-wide owner cannot be removed (403 forbidden, reason last_owner); with a second owner it can', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const ownGrant = (await team(owner.session.token, owner.merchant.id))
      .json<{ grants: { id: string; user_id: string }[] }>()
      .grants.find((grant) => grant.user_id === owner.user.id)!.id;
    const refused = await removeGrant(owner.session.token, owner.merchant.id, ownGrant);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: { code: 'forbidden', message: 'forbidden', details: { reason: 'last_owner' } } });
    // A shop-scoped owner does not count as an owner of the merchant.
    await join(owner, { role: 'owner', shop_id: owner.shop.id });
    expectError(await removeGrant(owner.session.token, owner.merchant.id, ownGrant), 403, 'forbidden');
    const second = await join(owner, { role: 'owner', shop_id: null });
    expect((await removeGrant(second.token, owner.merchant.id, ownGrant)).statusCode).toBe(200);
    expectError(await team(owner.session.token, owner.merchant.id), 404, 'not_found');
  });
});

describe('SPEC "Limits": team members plus pending invitations, 10 per merchant', () => {
  it('counted at inviting: the tenth person beside the owner is team_limit_reached; revoking frees a place', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const ids: string[] = [];
    for (let index = 0; index < 9; index += 1) {
      const invited = await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null });
      expect(invited.statusCode, invited.body).toBe(201);
      ids.push(invited.json<{ id: string }>().id);
    }
    const before = await stored();
    expectError(await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null }), 400, 'team_limit_reached');
    expect(await stored()).toEqual(before);
    await revoke(owner.session.token, owner.merchant.id, ids[0]!);
    expect((await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null })).statusCode).toBe(201);
  });

  it('operator staff can raise the limit for one merchant', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (let index = 0; index < 9; index += 1) {
      await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null });
    }
    expect((await admin(app, 'PATCH', `/merchants/${owner.merchant.id}/limits`, { payload: { team: 11 } })).statusCode).toBe(200);
    expect((await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null })).statusCode).toBe(201);
    expectError(await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null }), 400, 'team_limit_reached');
  });

  it('counted at accepting: a limit lowered after inviting refuses the acceptance with team_limit_reached; an existing member may still accept', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const member1 = await join(owner, { role: 'viewer', shop_id: owner.shop.id });
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: null });
    const pending = await receivedInvitation(address);
    // A second invitation for the member already in the team (a wider scope).
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: member1.address, role: 'developer', shop_id: null });
    const widening = await receivedInvitation(member1.address);
    expect((await admin(app, 'PATCH', `/merchants/${owner.merchant.id}/limits`, { payload: { team: 2 } })).statusCode).toBe(200);
    const token = await signInByEmail(address);
    const before = await stored();
    expectError(await accept(token, pending), 400, 'team_limit_reached');
    expect(await stored()).toEqual(before);
    expect((await accept(member1.token, widening)).statusCode).toBe(200);
  });
});

describe('SPEC "Authentication" 3 and 8: who may manage the team', () => {
  it('API keys are refused on every team route (403 forbidden); no credential is 401', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const payload = { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null };
    for (const token of [owner.key.token, readKey.token]) {
      expectError(await invite(token, owner.merchant.id, payload), 403, 'forbidden');
      expectError(await team(token, owner.merchant.id), 403, 'forbidden');
      expectError(await accept(token, newId()), 403, 'forbidden');
      expectError(await revoke(token, owner.merchant.id, newId()), 403, 'forbidden');
      expectError(await removeGrant(token, owner.merchant.id, newId()), 403, 'forbidden');
    }
    const anonymous = await app.request({ method: 'GET', url: `/api/v1/merchants/${owner.merchant.id}/team` });
    expectError(anonymous, 401, 'unauthorized');
  });

  it('developers and viewers, merchant-wide or not, cannot invite, list, revoke or remove (403 forbidden)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const payload = { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null };
    for (const [role, shopId] of [['developer', null], ['viewer', null], ['owner', owner.shop.id]] as const) {
      const person = await member(app.context.db, owner.merchant.id, role, shopId);
      expectError(await invite(person.token, owner.merchant.id, payload), 403, 'forbidden');
      expectError(await team(person.token, owner.merchant.id), 403, 'forbidden');
      expectError(await revoke(person.token, owner.merchant.id, newId()), 403, 'forbidden');
      expectError(await removeGrant(person.token, owner.merchant.id, newId()), 403, 'forbidden');
    }
  });

  it("another merchant's ids answer as if absent (404 not_found)", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const joined = await join(owner, { role: 'viewer', shop_id: null });
    const address = newAddress();
    await invite(owner.session.token, owner.merchant.id, { provider: 'email', subject: address, role: 'viewer', shop_id: null });
    const pending = await receivedInvitation(address);
    const stranger = await createOwnerWithShop(app.context.db);
    expectError(await team(stranger.session.token, owner.merchant.id), 404, 'not_found');
    expectError(await invite(stranger.session.token, owner.merchant.id, { provider: 'email', subject: newAddress(), role: 'viewer', shop_id: null }), 404, 'not_found');
    expectError(await revoke(stranger.session.token, owner.merchant.id, pending), 404, 'not_found');
    // Through the stranger's own merchant, the other merchant's invitation and grant do not exist.
    expectError(await revoke(stranger.session.token, stranger.merchant.id, pending), 404, 'not_found');
    expectError(await removeGrant(stranger.session.token, stranger.merchant.id, joined.grant.id), 404, 'not_found');
    expectError(await accept(stranger.session.token, newId()), 404, 'not_found');
    // Nothing changed for the owner's team.
    expect((await team(owner.session.token, owner.merchant.id)).json<{ invitations: { id: string }[] }>().invitations.map((row) => row.id)).toEqual([pending]);
  });
});
