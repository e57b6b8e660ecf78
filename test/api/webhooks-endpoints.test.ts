import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { countRows, registerEndpoint } from './webhooks-helpers.js';

// SPEC "Webhooks" (POST /shops/{shop_id}/webhooks, K(write) or S, I),
// "Webhook endpoint and delivery" (public HTTPS url, filters, one-time secret),
// "Events" (filters and groups), "Limits" (10 endpoints per shop).

let app: TestApp;
let privateApp: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  privateApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await app.close();
  await privateApp.close();
});

const HOOK = 'https://hooks.example.com/ivory';

function create(target: TestApp, token: string, shopId: string, payload: Record<string, unknown>, idempotencyKey = newIdempotencyKey()) {
  return target.request({ method: 'POST', url: `/api/v1/shops/${shopId}/webhooks`, headers: authed(token, idempotencyKey), payload });
}

async function endpointCount(target: TestApp, shopId: string): Promise<number> {
  const row = await target.context.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('SPEC "Webhooks": registering an endpoint', () => {
  it('answers 201 with the endpoint and a one-time whsec_ secret, stored sealed only', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await create(app, owner.session.token, owner.shop.id, { url: HOOK, filters: ['transfer', 'invoice.closed'] });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ url: HOOK, filters: ['transfer', 'invoice.closed'], enabled: true, disabled_reason: null });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Date(body.created_at).toString()).not.toBe('Invalid Date');

    // Encrypted at rest: neither the endpoint row nor the stored idempotent answer holds it in clear.
    const row = await app.context.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(body.secret.slice(6));
    expect(app.context.secrets.open(row.secret_sealed)).toBe(body.secret);
    const records = await app.context.db.selectFrom('idempotency_records').select(['response_body', 'response_bytes']).execute();
    expect(records.map((row) => `${Buffer.from(row.response_bytes ?? []).toString('utf8')} ${JSON.stringify(row.response_body)}`).join('\n')).not.toContain(body.secret.slice(6));

    // Never shown again.
    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.session.token) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    expect(list.body).not.toContain(body.secret);
    expect(list.json()[0]).not.toHaveProperty('secret');
  });

  it('repeating the request with the same Idempotency-Key returns the same secret and creates nothing new', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const key = newIdempotencyKey();
    const first = await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['payout'] }, key);
    const second = await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['payout'] }, key);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(await endpointCount(app, owner.shop.id)).toBe(1);

    const conflict = await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['transfer'] }, key);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('idempotency_conflict');
  });

  it('accepts every event name, every group, and the internal signals gas.wait and sweep.failed', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const filters = [
      'transfer.observed',
      'transfer.confirmed',
      'transfer.reverted',
      'invoice.closed',
      'invoice.cancelled',
      'payout.sent',
      'payout.confirmed',
      'payout.reverted',
      'payout.failed',
      'transfer',
      'invoice',
      'payout',
      'gas.wait',
      'sweep.failed',
    ];
    const response = await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters });
    expect(response.statusCode).toBe(201);
    expect(response.json().filters).toEqual(filters);
  });

  it('refuses bad filters with invalid_filters, storing nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const cases: unknown[] = [
      [],
      ['transfer.sent'],
      ['transfers'],
      ['Transfer'],
      ['transfer', 'transfer'],
      ['invoice.closed', 'payout', 'invoice.closed'],
      [''],
      [1],
      'transfer',
      null,
      [['transfer']],
    ];
    for (const filters of cases) {
      const response = await create(app, owner.session.token, owner.shop.id, { url: HOOK, filters });
      expect(response.statusCode, JSON.stringify(filters)).toBe(400);
      expect(response.json().error.code, JSON.stringify(filters)).toBe('invalid_filters');
    }
    const missing = await create(app, owner.session.token, owner.shop.id, { url: HOOK });
    expect(missing.json().error.code).toBe('invalid_filters');
    expect(await endpointCount(app, owner.shop.id)).toBe(0);
  });

  it('refuses a missing or non-string url with invalid_webhook_url, unknown fields with invalid_json', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (const payload of [{ filters: ['payout'] }, { url: 42, filters: ['payout'] }, { url: null, filters: ['payout'] }]) {
      const response = await create(app, owner.session.token, owner.shop.id, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_webhook_url');
    }
    const extra = await create(app, owner.session.token, owner.shop.id, { url: HOOK, filters: ['payout'], secret: 'whsec_mine' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.code).toBe('invalid_json');
    const noKey = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/webhooks`,
      headers: authed(owner.session.token),
      payload: { url: HOOK, filters: ['payout'] },
    });
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json().error.code).toBe('idempotency_key_required');
    expect(await endpointCount(app, owner.shop.id)).toBe(0);
  });
});

describe('SPEC "Webhook endpoint and delivery": local and private addresses are rejected (SSRF)', () => {
  // Each is refused at registration; names that only resolve to a private
  // address are caught at connect time (webhooks-delivery.test.ts).
  const FORBIDDEN = [
    'http://hooks.example.com/ivory', // not https
    'ftp://hooks.example.com/ivory',
    'gopher://hooks.example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'hooks.example.com/ivory', // not absolute
    '//hooks.example.com/ivory',
    'https://user:pass@hooks.example.com/ivory', // credentials
    'https://user@hooks.example.com/ivory',
    'https://127.0.0.1/hook',
    'https://127.1/hook', // short form of 127.0.0.1
    'https://2130706433/hook', // decimal 127.0.0.1
    'https://0177.0.0.1/hook', // octal 127.0.0.1
    'https://0x7f.0.0.1/hook', // hex 127.0.0.1
    'https://localhost/hook',
    'https://LOCALHOST./hook',
    'https://api.localhost/hook',
    'https://10.0.0.7/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://100.64.0.1/hook', // CGNAT
    'https://169.254.169.254/latest/meta-data', // link-local, cloud metadata
    'https://0.0.0.0/hook',
    'https://224.0.0.1/hook', // multicast
    'https://240.0.0.1/hook', // reserved
    'https://255.255.255.255/hook', // broadcast
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped IPv6
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[fe80::1]/hook', // link-local v6
    'https://[fc00::1]/hook', // unique local
    'https://[ff02::1]/hook', // multicast v6
    'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
    'https://printer.local/hook',
    'https://metadata.google.internal/hook',
    'https://intranet/hook', // single label
    `https://hooks.example.com/${'a'.repeat(2100)}`, // too long
  ];

  it(`refuses ${FORBIDDEN.length} forbidden URLs with invalid_webhook_url and stores nothing`, async () => {
    expect(FORBIDDEN.length).toBeGreaterThanOrEqual(25);
    const owner = await createOwnerWithShop(app.context.db);
    for (const url of FORBIDDEN) {
      const response = await create(app, owner.key.token, owner.shop.id, { url, filters: ['transfer'] });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe('invalid_webhook_url');
    }
    expect(await endpointCount(app, owner.shop.id)).toBe(0);
  });

  it('allows http and private hosts only with WEBHOOK_ALLOW_PRIVATE, never link-local or credentials', async () => {
    const owner = await createOwnerWithShop(privateApp.context.db);
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:8080/hook', 'https://10.1.2.3/hook', 'http://receiver/hook']) {
      const response = await create(privateApp, owner.key.token, owner.shop.id, { url, filters: ['transfer'] });
      expect(response.statusCode, url).toBe(201);
    }
    for (const url of ['http://169.254.169.254/latest', 'http://0.0.0.0/hook', 'http://user:pw@127.0.0.1/hook', 'ftp://127.0.0.1/']) {
      const response = await create(privateApp, owner.key.token, owner.shop.id, { url, filters: ['transfer'] });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe('invalid_webhook_url');
    }
    expect(await endpointCount(privateApp, owner.shop.id)).toBe(4);

    const strict = await createOwnerWithShop(app.context.db);
    const refused = await create(app, strict.key.token, strict.shop.id, { url: 'http://127.0.0.1:9/hook', filters: ['transfer'] });
    expect(refused.json().error.code).toBe('invalid_webhook_url');
  });
});

describe('SPEC "Limits": 10 webhook endpoints per shop', () => {
  it('refuses the eleventh with webhook_limit_reached; a deleted one frees its place', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const ids: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      ids.push((await registerEndpoint(app, owner.key.token, owner.shop.id, `${HOOK}/${index}`, ['transfer'])).id);
    }
    const eleventh = await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['transfer'] });
    expect(eleventh.statusCode).toBe(400);
    expect(eleventh.json().error.code).toBe('webhook_limit_reached');
    expect(await endpointCount(app, owner.shop.id)).toBe(10);

    // Disabled endpoints still count; deleted ones do not.
    const disable = await app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${ids[0]}`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { enabled: false },
    });
    expect(disable.statusCode).toBe(200);
    expect((await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['transfer'] })).statusCode).toBe(400);
    const removed = await app.request({
      method: 'DELETE',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${ids[1]}`,
      headers: authed(owner.key.token, newIdempotencyKey()),
    });
    expect(removed.statusCode).toBe(200);
    expect((await create(app, owner.key.token, owner.shop.id, { url: HOOK, filters: ['transfer'] })).statusCode).toBe(201);
  });

  it('holds under concurrent registrations: exactly 10 of 14 succeed', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const responses = await Promise.all(
      Array.from({ length: 14 }, (_, index) => create(app, owner.key.token, owner.shop.id, { url: `${HOOK}/${index}`, filters: ['payout'] })),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(responses.filter((response) => response.statusCode === 400).map((response) => response.json().error.code)).toEqual(
      Array(4).fill('webhook_limit_reached'),
    );
    expect(await endpointCount(app, owner.shop.id)).toBe(10);
  });
});

describe('SPEC "Authentication" 3: K(write) or S; keys work within their own shop', () => {
  it('refuses anonymous, read-only keys and keys of another shop; reads accept any key of the shop', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const other = await createOwnerWithShop(app.context.db);
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });

    const anonymous = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/webhooks`,
      headers: { 'idempotency-key': newIdempotencyKey() },
      payload: { url: HOOK, filters: ['transfer'] },
    });
    expect(anonymous.statusCode).toBe(401);
    const readOnly = await create(app, readKey.token, owner.shop.id, { url: HOOK, filters: ['transfer'] });
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error.code).toBe('forbidden');
    // Another merchant's key: the shop answers as if absent (decision 0016).
    const foreignKey = await create(app, other.key.token, owner.shop.id, { url: HOOK, filters: ['transfer'] });
    expect(foreignKey.statusCode).toBe(404);
    expect(foreignKey.json().error.code).toBe('shop_not_found');
    const foreignSession = await create(app, other.session.token, owner.shop.id, { url: HOOK, filters: ['transfer'] });
    expect(foreignSession.statusCode).toBe(404);
    expect(foreignSession.json().error.code).toBe('shop_not_found');
    expect(await endpointCount(app, owner.shop.id)).toBe(0);

    expect((await create(app, writeKey.token, owner.shop.id, { url: HOOK, filters: ['transfer'] })).statusCode).toBe(201);
    for (const path of ['webhooks', 'deliveries', 'events']) {
      for (const token of [readKey.token, writeKey.token, owner.session.token]) {
        const response = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/${path}`, headers: authed(token) });
        expect(response.statusCode, path).toBe(200);
      }
      const foreign = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/${path}`, headers: authed(other.key.token) });
      expect(foreign.statusCode, path).toBe(404);
    }
  });
});

describe('endpoint management: update, delete, rotate', () => {
  it('PATCH changes url, filters and enabled; omitted fields stay; bad values change nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['transfer']);
    const patch = (payload: Record<string, unknown>, id = endpoint.id) =>
      app.request({
        method: 'PATCH',
        url: `/api/v1/shops/${owner.shop.id}/webhooks/${id}`,
        headers: authed(owner.key.token, newIdempotencyKey()),
        payload,
      });

    const changed = await patch({ url: `${HOOK}/v2`, filters: ['payout', 'invoice.closed'] });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ id: endpoint.id, url: `${HOOK}/v2`, filters: ['payout', 'invoice.closed'], enabled: true });

    const disabled = await patch({ enabled: false });
    expect(disabled.json()).toMatchObject({ enabled: false, disabled_reason: 'manual', url: `${HOOK}/v2` });
    expect(disabled.json().disabled_at).not.toBeNull();
    const enabled = await patch({ enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });

    for (const [payload, code] of [
      [{ url: 'https://127.0.0.1/x' }, 'invalid_webhook_url'],
      [{ url: 'http://hooks.example.com/' }, 'invalid_webhook_url'],
      [{ filters: [] }, 'invalid_filters'],
      [{ filters: ['payout', 'nope'] }, 'invalid_filters'],
      [{ enabled: 'yes' }, 'invalid_request'],
      [{ secret: 'x' }, 'invalid_json'],
    ] as const) {
      const response = await patch(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code, JSON.stringify(payload)).toBe(code);
    }
    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.key.token) });
    expect(list.json()[0]).toMatchObject({ url: `${HOOK}/v2`, filters: ['payout', 'invoice.closed'], enabled: true });

    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const unknown = await patch({ enabled: false }, id);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('not_found');
    }
  });

  it('DELETE removes the endpoint from the list; it cannot be changed or deleted again', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['transfer']);
    const remove = () =>
      app.request({
        method: 'DELETE',
        url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`,
        headers: authed(owner.key.token, newIdempotencyKey()),
      });
    const removed = await remove();
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ id: endpoint.id, deleted: true });
    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.key.token) });
    expect(list.json()).toEqual([]);
    expect((await remove()).statusCode).toBe(404);
    const rotate = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}/rotate-secret`,
      headers: authed(owner.key.token, newIdempotencyKey()),
    });
    expect(rotate.statusCode).toBe(404);
  });

  it('rotate-secret returns a new secret once and shows the overlap of the previous one', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, HOOK, ['transfer']);
    const key = newIdempotencyKey();
    const rotate = () =>
      app.request({
        method: 'POST',
        url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}/rotate-secret`,
        headers: authed(owner.key.token, key),
      });
    const rotated = await rotate();
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(endpoint.secret);
    expect(new Date(body.previous_secret_expires_at).getTime()).toBe(app.clock.now().getTime() + 24 * 3600 * 1000);
    expect((await rotate()).json()).toEqual(body); // idempotent: the same new secret, no second rotation
    const row = await app.context.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    expect(app.context.secrets.open(row.secret_sealed)).toBe(body.secret);
    expect(app.context.secrets.open(row.previous_secret_sealed ?? '')).toBe(endpoint.secret);
    expect(await countRows(app.context.db, 'idempotency_records')).toBeGreaterThan(0);
    const records = await app.context.db.selectFrom('idempotency_records').select(['response_body', 'response_bytes']).execute();
    expect(records.map((row) => `${Buffer.from(row.response_bytes ?? []).toString('utf8')} ${JSON.stringify(row.response_body)}`).join('\n')).not.toContain(body.secret.slice(6));
  });
});
