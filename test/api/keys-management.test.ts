import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '../../src/platform/crypto.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { countRows, errorCode, json, member } from './merchants-helpers.js';

type Owner = Awaited<ReturnType<typeof createOwnerWithShop>>;

// SPEC "API keys" table, "API key" resource, "Authentication" 3–4, "Limits".
describe('API key management', () => {
  let app: TestApp;
  let owner: Owner;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    owner = await createOwnerWithShop(app.context.db);
  });

  const create = (payload: unknown, token = owner.session.token, shopId = owner.shop.id, key = newIdempotencyKey(), base = 'shops') =>
    app.request({ method: 'POST', url: `/api/v1/${base}/${shopId}/keys`, headers: json(authed(token, key)), payload: payload as object });
  const patch = (keyId: string, payload: unknown, token = owner.session.token, shopId = owner.shop.id) =>
    app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${shopId}/keys/${keyId}`,
      headers: json(authed(token, newIdempotencyKey())),
      payload: payload as object,
    });
  const revoke = (keyId: string, token = owner.session.token, shopId = owner.shop.id, key = newIdempotencyKey()) =>
    app.request({ method: 'DELETE', url: `/api/v1/shops/${shopId}/keys/${keyId}`, headers: authed(token, key) });
  const readShop = (token: string, remoteAddress?: string) =>
    app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}`, headers: authed(token), ...(remoteAddress ? { remoteAddress } : {}) });
  const keyRow = (id: string) => app.context.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function refused(call: () => Promise<{ statusCode: number; json(): unknown }>) {
    const snapshot = async () => ({
      // last_used_at is stamped by the auth layer whenever a key is presented; the rest must not move.
      keys: (await app.context.db.selectFrom('api_keys').selectAll().orderBy('id').execute()).map(({ last_used_at: _used, ...key }) => key),
      records: await countRows(app.context.db, 'idempotency_records'),
    });
    const before = await snapshot();
    const response = await call();
    expect(await snapshot()).toEqual(before);
    return { status: response.statusCode, code: errorCode(response) };
  }

  it('creates a key: 201 with the ivk_ token once; only its SHA-256 and a 12-character prefix are stored', async () => {
    const response = await create({ name: ' CI deploy ', scopes: ['write', 'read'], allowed_ips: ['10.0.0.1'] });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      shop_id: owner.shop.id,
      name: 'CI deploy',
      scopes: ['write', 'read'],
      allowed_ips: ['10.0.0.1'],
      enabled: true,
      token_prefix: body.token.slice(0, 12),
      created_at: app.clock.now().toISOString(),
      last_used_at: null,
      token: expect.stringMatching(/^ivk_[A-Za-z0-9_-]{43}$/),
    });
    const row = await keyRow(body.id);
    expect(row.token_hash).toBe(sha256Hex(body.token));
    expect(row.merchant_id).toBe(owner.merchant.id);
    expect(JSON.stringify(row)).not.toContain(body.token);
    // Nor does the stored idempotent answer hold the token in clear.
    const records = await app.context.db.selectFrom('idempotency_records').select(['response_body', 'response_bytes']).execute();
    expect(records.map((row) => `${Buffer.from(row.response_bytes ?? []).toString('utf8')} ${JSON.stringify(row.response_body)}`).join('\n')).not.toContain(body.token.slice(4));

    const listed = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/keys`, headers: authed(owner.session.token) });
    expect(listed.statusCode).toBe(200);
    const { token: _token, ...record } = body;
    expect(listed.json()).toContainEqual(record);
    expect(JSON.stringify(listed.json())).not.toContain(body.token);
  });

  it('the new token works: GET /me and GET /shops/{id} with it', async () => {
    const { token } = (await create({ name: 'reader', scopes: ['read'] })).json();
    const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) });
    expect(me.statusCode).toBe(200);
    expect((await readShop(token)).statusCode).toBe(200);
  });

  it('invalid_name, invalid_scopes, invalid_allowed_ips, too_many_allowed_ips: exact status and nothing stored', async () => {
    const cases: [unknown, string][] = [
      [{ name: '', scopes: ['read'] }, 'invalid_name'],
      [{ name: '   ', scopes: ['read'] }, 'invalid_name'],
      [{ name: 'x'.repeat(101), scopes: ['read'] }, 'invalid_name'],
      [{ name: 5, scopes: ['read'] }, 'invalid_name'],
      [{ scopes: ['read'] }, 'invalid_name'],
      [{ name: 'k', scopes: [] }, 'invalid_scopes'],
      [{ name: 'k', scopes: ['admin'] }, 'invalid_scopes'],
      [{ name: 'k', scopes: ['read', 'read'] }, 'invalid_scopes'],
      [{ name: 'k', scopes: ['READ'] }, 'invalid_scopes'],
      [{ name: 'k', scopes: 'read' }, 'invalid_scopes'],
      [{ name: 'k', scopes: [1] }, 'invalid_scopes'],
      [{ name: 'k' }, 'invalid_scopes'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['999.1.1.1'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['10.0.0.0/33'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['2001:db8::/129'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['127.1'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['0x7f.0.0.1'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['fe80::1%eth0'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['example.com'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: [''] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: [' 1.2.3.4'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: ['1.2.3.4/'] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: [4] }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: '1.2.3.4' }, 'invalid_allowed_ips'],
      [{ name: 'k', scopes: ['read'], allowed_ips: Array.from({ length: 11 }, (_, index) => `10.0.0.${index}`) }, 'too_many_allowed_ips'],
      [{ name: 'k', scopes: ['read'], token: 'ivk_chosen' }, 'invalid_json'],
      [{ name: 'k', scopes: ['read'], enabled: false }, 'invalid_json'],
    ];
    for (const [payload, code] of cases) {
      expect(await refused(() => create(payload)), JSON.stringify(payload)).toEqual({ status: 400, code });
    }
    const ten = Array.from({ length: 10 }, (_, index) => `10.0.0.${index}`);
    expect((await create({ name: 'k', scopes: ['read'], allowed_ips: ten })).statusCode).toBe(201);
  });

  it('allowed_ips are normalised: IPv6 compressed, ranges to their network, mapped IPv4 plain, duplicates once', async () => {
    const response = await create({
      name: 'k',
      scopes: ['read'],
      allowed_ips: ['2001:DB8:0:0::1', '10.1.2.3/8', '::ffff:1.2.3.4', '2001:db8::5/32', '10.0.0.0/8', '0.0.0.0/0'],
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().allowed_ips).toEqual(['2001:db8::1', '10.0.0.0/8', '1.2.3.4', '2001:db8::/32', '0.0.0.0/0']);
  });

  it('an allowlisted key is unauthorized from elsewhere (SPEC "Authentication" 3)', async () => {
    const { token } = (await create({ name: 'k', scopes: ['read'], allowed_ips: ['203.0.113.0/24'] })).json();
    expect((await readShop(token, '203.0.113.9')).statusCode).toBe(200);
    const elsewhere = await readShop(token, '198.51.100.1');
    expect(elsewhere.statusCode).toBe(401);
    expect(errorCode(elsewhere)).toBe('unauthorized');
  });

  it('at most 10 non-revoked keys per shop: api_key_limit_reached; revoking frees a slot', async () => {
    for (let index = 1; index < 10; index += 1) expect((await create({ name: `k${index}`, scopes: ['read'] })).statusCode).toBe(201);
    expect(await refused(() => create({ name: 'eleventh', scopes: ['read'] }))).toEqual({ status: 400, code: 'api_key_limit_reached' });
    await app.context.db.updateTable('api_keys').set({ enabled: false }).where('id', '=', owner.key.id).execute();
    expect(await refused(() => create({ name: 'eleventh', scopes: ['read'] }))).toEqual({ status: 400, code: 'api_key_limit_reached' });
    expect((await revoke(owner.key.id)).statusCode).toBe(200);
    expect((await create({ name: 'eleventh', scopes: ['read'] })).statusCode).toBe(201);
  });

  it('12 concurrent creations on an empty shop: exactly 10 succeed', async () => {
    const shop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => create({ name: `c${index}`, scopes: ['read'] }, owner.session.token, shop.id)));
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(10);
    expect(responses.filter((response) => errorCode(response) === 'api_key_limit_reached')).toHaveLength(2);
    const stored = await app.context.db.selectFrom('api_keys').select('id').where('shop_id', '=', shop.id).execute();
    expect(stored).toHaveLength(10);
  });

  it('who may manage keys: only owners create, change and revoke; developers read them; viewer 403; any API key 403; another merchant 404 shop_not_found', async () => {
    const developer = await member(app.context.db, owner.merchant.id, 'developer');
    expect(await refused(() => create({ name: 'dev', scopes: ['read'] }, developer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => revoke(owner.key.id, developer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => patch(owner.key.id, { enabled: false }, developer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect((await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/keys`, headers: authed(developer.token) })).statusCode).toBe(200);
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    expect(await refused(() => create({ name: 'v', scopes: ['read'] }, viewer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => revoke(owner.key.id, viewer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => patch(owner.key.id, { enabled: false }, viewer.token))).toEqual({ status: 403, code: 'forbidden' });
    expect((await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/keys`, headers: authed(viewer.token) })).statusCode).toBe(403);
    expect(await refused(() => create({ name: 'k', scopes: ['read'] }, owner.key.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => patch(owner.key.id, { enabled: false }, owner.key.token))).toEqual({ status: 403, code: 'forbidden' });
    expect(await refused(() => revoke(owner.key.id, owner.key.token))).toEqual({ status: 403, code: 'forbidden' });
    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/keys`, headers: authed(owner.key.token) });
    expect(list.statusCode).toBe(403);
    const stranger = await createOwnerWithShop(app.context.db);
    expect(await refused(() => create({ name: 'k', scopes: ['read'] }, stranger.session.token))).toEqual({ status: 404, code: 'shop_not_found' });
    expect(await refused(() => revoke(owner.key.id, stranger.session.token))).toEqual({ status: 404, code: 'shop_not_found' });
  });

  it('PATCH changes name, enabled, scopes and allowed_ips; omitted fields stay; the token is neither shown nor rotated', async () => {
    const created = (await create({ name: 'k', scopes: ['read'], allowed_ips: ['10.0.0.1'] })).json();
    const hashBefore = (await keyRow(created.id)).token_hash;

    const renamed = await patch(created.id, { name: 'renamed' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: created.id, name: 'renamed', scopes: ['read'], allowed_ips: ['10.0.0.1'], enabled: true });
    expect(renamed.json()).not.toHaveProperty('token');

    expect((await patch(created.id, { allowed_ips: [] })).json().allowed_ips).toEqual([]);
    expect((await readShop(created.token)).statusCode).toBe(200);

    expect((await patch(created.id, { enabled: false })).json().enabled).toBe(false);
    expect((await readShop(created.token)).statusCode).toBe(401);
    expect((await patch(created.id, { enabled: true })).json().enabled).toBe(true);
    expect((await readShop(created.token)).statusCode).toBe(200);

    expect((await patch(created.id, { scopes: ['write'] })).json().scopes).toEqual(['write']);
    expect(errorCode(await readShop(created.token))).toBe('forbidden');

    const final = await keyRow(created.id);
    expect(final.token_hash).toBe(hashBefore);
    expect(final.name).toBe('renamed');
  });

  it('PATCH refuses bad fields and unknown, revoked or foreign keys, changing nothing', async () => {
    const created = (await create({ name: 'k', scopes: ['read'] })).json();
    const cases: [unknown, string][] = [
      [{ name: '' }, 'invalid_name'],
      [{ scopes: [] }, 'invalid_scopes'],
      [{ scopes: ['read', 'admin'] }, 'invalid_scopes'],
      [{ allowed_ips: ['nope'] }, 'invalid_allowed_ips'],
      [{ allowed_ips: Array.from({ length: 11 }, (_, index) => `10.0.1.${index}`) }, 'too_many_allowed_ips'],
      [{ enabled: 'no' }, 'invalid_request'],
      [{ token: 'x' }, 'invalid_json'],
    ];
    for (const [payload, code] of cases) {
      expect(await refused(() => patch(created.id, payload)), JSON.stringify(payload)).toEqual({ status: 400, code });
    }
    for (const keyId of [newId(), 'nope']) {
      expect(await refused(() => patch(keyId, { name: 'x' }))).toEqual({ status: 404, code: 'not_found' });
    }
    const otherShop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const foreign = await createApiKey(app.context.db, { id: otherShop.id, merchantId: owner.merchant.id });
    expect(await refused(() => patch(foreign.id, { name: 'x' }))).toEqual({ status: 404, code: 'not_found' });
    expect((await revoke(created.id)).statusCode).toBe(200);
    expect(await refused(() => patch(created.id, { name: 'x' }))).toEqual({ status: 404, code: 'not_found' });
  });

  it('DELETE revokes: 200 {ok:true}; the key stops working and leaves the list; unknown keys are 404 not_found', async () => {
    const created = (await create({ name: 'k', scopes: ['read'] })).json();
    const idempotencyKey = newIdempotencyKey();
    const response = await revoke(created.id, owner.session.token, owner.shop.id, idempotencyKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect((await keyRow(created.id)).revoked_at).toEqual(app.clock.now());
    expect((await readShop(created.token)).statusCode).toBe(401);
    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/keys`, headers: authed(owner.session.token) });
    expect(list.json().map((key: { id: string }) => key.id)).not.toContain(created.id);

    const replay = await revoke(created.id, owner.session.token, owner.shop.id, idempotencyKey);
    expect(replay.statusCode).toBe(200);
    expect(await refused(() => revoke(created.id))).toEqual({ status: 404, code: 'not_found' });
    expect(await refused(() => revoke(newId()))).toEqual({ status: 404, code: 'not_found' });
    const otherShop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const foreign = await createApiKey(app.context.db, { id: otherShop.id, merchantId: owner.merchant.id });
    expect(await refused(() => revoke(foreign.id))).toEqual({ status: 404, code: 'not_found' });
    expect(
      await refused(() => app.request({ method: 'DELETE', url: `/api/v1/shops/${owner.shop.id}/keys/${foreign.id}`, headers: authed(owner.session.token) })),
    ).toEqual({ status: 400, code: 'idempotency_key_required' });
  });

  it('/projects is an alias sharing the idempotency scope: the same key via /projects then /shops returns the stored key', async () => {
    const idempotencyKey = newIdempotencyKey();
    const payload = { name: 'legacy', scopes: ['read'] };
    const first = await create(payload, owner.session.token, owner.shop.id, idempotencyKey, 'projects');
    expect(first.statusCode).toBe(201);
    const second = await create(payload, owner.session.token, owner.shop.id, idempotencyKey, 'shops');
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    const stored = await app.context.db.selectFrom('api_keys').select('id').where('shop_id', '=', owner.shop.id).where('name', '=', 'legacy').execute();
    expect(stored).toHaveLength(1);
    // The replayed token is the real one.
    expect((await readShop(second.json().token)).statusCode).toBe(200);
    const conflict = await create({ name: 'other', scopes: ['read'] }, owner.session.token, owner.shop.id, idempotencyKey, 'projects');
    expect(conflict.statusCode).toBe(409);
    const listed = await app.request({ method: 'GET', url: `/api/v1/projects/${owner.shop.id}/keys`, headers: authed(owner.session.token) });
    expect(listed.statusCode).toBe(200);
  });
});
