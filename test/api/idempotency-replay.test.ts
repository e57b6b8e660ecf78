import { ed25519 } from '@noble/curves/ed25519';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { lastingDatabase, type LastingDatabase } from '../support/database.js';
import { createApiKey, createOwnerWithShop, createSession, createUser } from '../support/factories.js';
import { newId } from '../../src/platform/crypto.js';
import { generatePrivateKey } from 'viem/accounts';
import type { DatabaseHandle } from '../../src/platform/database/database.js';
import { BASE, BASE_USDC, openInvoice, usdc } from './issuances-helpers.js';
import { base58, member, tronAddressOfKey } from './merchants-helpers.js';
import { registerEndpoint } from './webhooks-helpers.js';

// SPEC "Authentication" 7, issue 13 item 2, decision 0019: the replay of an
// idempotent request is byte for byte the first answer, on every idempotent
// route of the app's route table, in the same process and after a restart on
// the same storage (a PGlite data directory, or PostgreSQL with TEST_DATABASE_URL).

type Owner = Awaited<ReturnType<typeof createOwnerWithShop>>;

interface Call {
  readonly url: string;
  readonly token: string;
  readonly payload?: object;
}

/**
 * One case per idempotent route, keyed "METHOD /api/v1/pattern" as the route
 * table names it: the set is compared with the table, so a new idempotent
 * route fails this file until it has a case here.
 */
const CASES: Record<string, (app: TestApp, owner: Owner) => Promise<Call>> = {
  'POST /api/v1/shops/:shop_id/invoices': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/invoices`,
    token: owner.key.token,
    payload: { chain_id: BASE, token: BASE_USDC, amount: usdc(12), description: 'Order 7', external_id: 'order-7' },
  }),
  'POST /api/v1/shops/:shop_id/deposits': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/deposits`,
    token: owner.key.token,
    payload: { chain_id: BASE, token: BASE_USDC, external_id: 'user-42' },
  }),
  'POST /api/v1/shops/:shop_id/invoices/:id/cancel': async (app, owner) => {
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(5));
    return { url: `/api/v1/shops/${owner.shop.id}/invoices/${invoice.id}/cancel`, token: owner.key.token };
  },
  'PATCH /api/v1/shops/:shop_id/deposits/:id': async (app, owner) => {
    const created = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/deposits`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { chain_id: BASE, token: BASE_USDC },
    });
    return { url: `/api/v1/shops/${owner.shop.id}/deposits/${created.json().id}`, token: owner.key.token, payload: { enabled: false } };
  },
  'POST /api/v1/shops/:shop_id/sandbox/simulate': async (app, owner) => {
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    return {
      url: `/api/v1/shops/${owner.shop.id}/sandbox/simulate`,
      token: owner.key.token,
      payload: { issuance_id: invoice.id, kind: 'transfer.confirmed', amount: usdc(10) },
    };
  },
  'POST /api/v1/shops/:shop_id/sandbox/reset': async (app, owner) => {
    await openInvoice(app, owner.key.token, owner.shop.id, usdc(3));
    return { url: `/api/v1/shops/${owner.shop.id}/sandbox/reset`, token: owner.session.token };
  },
  'POST /api/v1/shops/:shop_id/webhooks': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/webhooks`,
    token: owner.key.token,
    payload: { url: HOOK, filters: ['invoice', 'transfer'] },
  }),
  'PATCH /api/v1/shops/:shop_id/webhooks/:id': async (app, owner) => {
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['invoice']);
    return { url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`, token: owner.key.token, payload: { filters: ['payout'], enabled: false } };
  },
  'DELETE /api/v1/shops/:shop_id/webhooks/:id': async (app, owner) => {
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['invoice']);
    return { url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`, token: owner.key.token };
  },
  'POST /api/v1/shops/:shop_id/webhooks/:id/rotate-secret': async (app, owner) => {
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['invoice']);
    return { url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}/rotate-secret`, token: owner.key.token };
  },
  'POST /api/v1/shops/:shop_id/webhooks/:id/recover': async (app, owner) => {
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['invoice']);
    return {
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}/recover`,
      token: owner.key.token,
      payload: { since: new Date(Date.now() - 3_600_000).toISOString() },
    };
  },
  'POST /api/v1/shops/:shop_id/deliveries/:id/replay': async (app, owner) => {
    await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['invoice', 'transfer']);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(7));
    const simulated = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/sandbox/simulate`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { issuance_id: invoice.id, kind: 'transfer.confirmed', amount: usdc(7) },
    });
    expect(simulated.statusCode, simulated.body).toBe(200);
    const delivery = await app.context.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select('webhook_deliveries.id')
      .where('webhook_endpoints.shop_id', '=', owner.shop.id)
      .executeTakeFirstOrThrow();
    return { url: `/api/v1/shops/${owner.shop.id}/deliveries/${delivery.id}/replay`, token: owner.key.token };
  },
  'POST /api/v1/shops/:shop_id/keys': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/keys`,
    token: owner.session.token,
    payload: { name: 'CI deploy', scopes: ['write', 'read'], allowed_ips: ['10.0.0.1'] },
  }),
  'PATCH /api/v1/shops/:shop_id/keys/:key_id': async (app, owner) => {
    const key = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id });
    return { url: `/api/v1/shops/${owner.shop.id}/keys/${key.id}`, token: owner.session.token, payload: { name: 'renamed', scopes: ['read'] } };
  },
  'DELETE /api/v1/shops/:shop_id/keys/:key_id': async (app, owner) => {
    const key = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id });
    return { url: `/api/v1/shops/${owner.shop.id}/keys/${key.id}`, token: owner.session.token };
  },
  'POST /api/v1/onboarding': async (app, owner) => {
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', owner.user.id).execute();
    return { url: '/api/v1/onboarding', token: owner.session.token, payload: { name: 'Replay merchant', email: `replay-${owner.user.id}@example.org` } };
  },
  'POST /api/v1/merchants/:merchant_id/shops': async (_app, owner) => ({
    url: `/api/v1/merchants/${owner.merchant.id}/shops`,
    token: owner.session.token,
    payload: { name: 'Live shop', sandbox: false, recipient: '0x000000000000000000000000000000000000bEEF', delegate: DELEGATE },
  }),
  'PATCH /api/v1/shops/:shop_id': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}`,
    token: owner.session.token,
    payload: { delegate: DELEGATE },
  }),
  'POST /api/v1/shops/:shop_id/archive': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/archive`,
    token: owner.session.token,
  }),
  'PUT /api/v1/shops/:shop_id/solana-recipient': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/solana-recipient`,
    token: owner.session.token,
    payload: { address: base58(ed25519.getPublicKey(ed25519.utils.randomPrivateKey())) },
  }),
  'PUT /api/v1/shops/:shop_id/tron-recipient': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/tron-recipient`,
    token: owner.session.token,
    // A key-derived address: the token contract itself is refused as a recipient (a service address).
    payload: { address: tronAddressOfKey(generatePrivateKey()) },
  }),
  'PATCH /api/v1/shops/:shop_id/branding': async (_app, owner) => ({
    url: `/api/v1/shops/${owner.shop.id}/branding`,
    token: owner.session.token,
    payload: { name: 'Replay Coffee' },
  }),
  'POST /api/v1/merchants/:merchant_id/invites': async (_app, owner) => ({
    url: `/api/v1/merchants/${owner.merchant.id}/invites`,
    token: owner.session.token,
    payload: { provider: 'email', subject: `invitee-${owner.user.id}@example.org`, role: 'developer', shop_id: null },
  }),
  'POST /api/v1/invites/:id/accept': async (app, owner) => {
    const invitation = await pendingInvitation(app, owner);
    return { url: `/api/v1/invites/${invitation.id}/accept`, token: invitation.inviteeToken };
  },
  'DELETE /api/v1/merchants/:merchant_id/invites/:id': async (app, owner) => {
    const invitation = await pendingInvitation(app, owner);
    return { url: `/api/v1/merchants/${owner.merchant.id}/invites/${invitation.id}`, token: owner.session.token };
  },
  'DELETE /api/v1/merchants/:merchant_id/grants/:id': async (app, owner) => {
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    const grant = await app.context.db.selectFrom('grants').select('id').where('user_id', '=', viewer.userId).executeTakeFirstOrThrow();
    return { url: `/api/v1/merchants/${owner.merchant.id}/grants/${grant.id}`, token: owner.session.token };
  },
};

/** An invitation to a person who already has an e-mail identity and a session: its id and the invitee's token. */
async function pendingInvitation(app: TestApp, owner: Owner): Promise<{ id: string; inviteeToken: string }> {
  const address = `member-${newId()}@example.org`;
  const invitee = await createUser(app.context.db);
  await app.context.db
    .insertInto('identities')
    .values({ id: newId(), user_id: invitee.id, provider: 'email', subject: address, label: address })
    .execute();
  const session = await createSession(app.context.db, invitee.id);
  const invited = await app.request({
    method: 'POST',
    url: `/api/v1/merchants/${owner.merchant.id}/invites`,
    headers: authed(owner.session.token, newIdempotencyKey()),
    payload: { provider: 'email', subject: address, role: 'viewer', shop_id: null },
  });
  expect(invited.statusCode, invited.body).toBe(201);
  return { id: invited.json<{ id: string }>().id, inviteeToken: session.token };
}

const HOOK = 'https://hooks.example.com/ivory';
const DELEGATE = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

interface Sent {
  readonly route: string;
  readonly method: string;
  readonly call: Call;
  readonly key: string;
  readonly first: LightMyRequestResponse;
}

let storage: LastingDatabase;
let handle: DatabaseHandle;
let app: TestApp;
const sent: Sent[] = [];

beforeAll(async () => {
  storage = await lastingDatabase();
  handle = await storage.open();
  app = await createTestApp({}, undefined, { database: handle });
});
afterAll(async () => {
  await app.close();
  await handle.close();
  await storage.drop();
});

function send(target: TestApp, method: string, call: Call, key: string): Promise<LightMyRequestResponse> {
  return target.request({
    method: method as 'POST',
    url: call.url,
    headers: authed(call.token, key),
    ...(call.payload === undefined ? {} : { payload: call.payload }),
  });
}

function expectSameBytes(replay: LightMyRequestResponse, first: LightMyRequestResponse): void {
  expect(replay.statusCode).toBe(first.statusCode);
  expect(replay.headers['content-type']).toBe(first.headers['content-type']);
  // Compared as bytes, not as parsed JSON: key order and spacing count.
  expect(replay.rawPayload.toString('hex')).toBe(first.rawPayload.toString('hex'));
}

describe('SPEC "Authentication" 7: a replayed idempotent answer is byte for byte the first answer', () => {
  it('every idempotent route in the route table has a replay case here (a new one fails until it is added)', () => {
    const routes = app.server.idempotentRoutes.map((route) => `${route.method} ${route.url}`);
    expect(new Set(routes).size).toBe(routes.length);
    expect([...routes].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s: the replay with the same key sends the same status, content type and bytes', async (route) => {
    const [method = 'POST'] = route.split(' ', 1);
    const owner = await createOwnerWithShop(app.context.db);
    const call = await CASES[route]!(app, owner);
    const key = newIdempotencyKey();
    const first = await send(app, method, call, key);
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect(first.rawPayload.length).toBeGreaterThan(0);
    expectSameBytes(await send(app, method, call, key), first);
    sent.push({ route, method, call, key, first });
  });

  it('after a restart on the same storage, every replay still sends the first answer\'s bytes', async () => {
    expect(sent.map((entry) => entry.route).sort()).toEqual(Object.keys(CASES).sort());
    await app.close();
    await handle.close();
    handle = await storage.open();
    app = await createTestApp({}, undefined, { database: handle });
    for (const entry of sent) {
      const replay = await send(app, entry.method, entry.call, entry.key);
      expect(replay.rawPayload.toString('hex'), entry.route).toBe(entry.first.rawPayload.toString('hex'));
      expect(replay.statusCode, entry.route).toBe(entry.first.statusCode);
    }
  });

  it('the stored bytes of an answer that shows a secret are sealed: neither the key token nor the signing secret is at rest in clear', async () => {
    const secrets = sent.filter((entry) => entry.route === 'POST /api/v1/shops/:shop_id/keys' || entry.route.includes('webhooks/:id/rotate-secret'));
    expect(secrets).toHaveLength(2);
    const rows = await app.context.db.selectFrom('idempotency_records').select(['response_bytes', 'response_body']).execute();
    const atRest = rows.map((row) => `${Buffer.from(row.response_bytes ?? new Uint8Array()).toString('utf8')} ${JSON.stringify(row.response_body)}`).join('\n');
    for (const entry of secrets) {
      const body = entry.first.json() as { token?: string; secret?: string };
      const secret = body.token ?? body.secret ?? '';
      expect(secret.length).toBeGreaterThan(10);
      expect(atRest).not.toContain(secret.slice(6));
    }
  });
});

describe('decision 0019: answers stored before the bytes were kept are still replayed', () => {
  /** Rewrites the stored answer of `entry` to the form rows had before migration 202611240040 (parsed JSON in jsonb). */
  async function toLegacyRow(entry: Sent, body: unknown): Promise<void> {
    const updated = await app.context.db
      .updateTable('idempotency_records')
      .set({ response_body: JSON.stringify(body), response_bytes: null, response_content_type: null, response_sealed: false })
      .where('key', '=', entry.key)
      .executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(1n);
  }

  it('a legacy invoice answer replays as the same JSON with the stored status', async () => {
    const entry = sent.find((candidate) => candidate.route === 'POST /api/v1/shops/:shop_id/invoices')!;
    await toLegacyRow(entry, entry.first.json());
    const replay = await send(app, entry.method, entry.call, entry.key);
    expect(replay.statusCode).toBe(entry.first.statusCode);
    expect(replay.json()).toEqual(entry.first.json());
  });

  it('a legacy key-creation answer (token sealed as a field) replays with the token in clear', async () => {
    const entry = sent.find((candidate) => candidate.route === 'POST /api/v1/shops/:shop_id/keys')!;
    const first = entry.first.json() as { token: string };
    await toLegacyRow(entry, { ...first, token: app.context.secrets.seal(first.token) });
    const replay = await send(app, entry.method, entry.call, entry.key);
    expect(replay.statusCode).toBe(201);
    expect(replay.json()).toEqual(first);
  });
});
