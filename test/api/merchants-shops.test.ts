import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeServiceWallet } from '../../src/merchants/index.js';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createMerchant, createOwnerWithShop, createSession, createShop, createUser } from '../support/factories.js';
import { countRows, errorCode, json, member } from './merchants-helpers.js';

const CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';
// EIP-55 test vector: the lower-case form and its checksummed form.
const LOWERCASE = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const LOWERCASE_CHECKSUMMED = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const DELEGATE = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

// SPEC "Merchants and team" POST /merchants/{id}/shops, "Shops" PATCH /shops/{id}, SPEC "Shop".
describe('shops', () => {
  let app: TestApp;
  let owner: { userId: string; token: string; merchantId: string };

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    const user = await createUser(app.context.db);
    const session = await createSession(app.context.db, user.id);
    const merchant = await createMerchant(app.context.db, user.id);
    owner = { userId: user.id, token: session.token, merchantId: merchant.id };
  });

  const create = (payload: unknown, token = owner.token, merchantId = owner.merchantId, key = newIdempotencyKey()) =>
    app.request({ method: 'POST', url: `/api/v1/merchants/${merchantId}/shops`, headers: json(authed(token, key)), payload: payload as object });
  const patch = (shopId: string, payload: unknown, token = owner.token, key = newIdempotencyKey()) =>
    app.request({ method: 'PATCH', url: `/api/v1/shops/${shopId}`, headers: json(authed(token, key)), payload: payload as object });

  /** The error code and status, after checking that nothing at all was stored. */
  async function refused(call: () => Promise<{ statusCode: number; json(): unknown }>) {
    const before = { shops: await countRows(app.context.db, 'shops'), records: await countRows(app.context.db, 'idempotency_records') };
    const response = await call();
    expect({ shops: await countRows(app.context.db, 'shops'), records: await countRows(app.context.db, 'idempotency_records') }).toEqual(before);
    return { status: response.statusCode, code: errorCode(response) };
  }

  it('creates a live shop: 201 with the shop record, recipient in EIP-55 form, name trimmed', async () => {
    const response = await create({ name: '  Main store ', sandbox: false, recipient: CHECKSUMMED.toLowerCase(), delegate: DELEGATE });
    expect(response.statusCode).toBe(201);
    const shop = response.json();
    expect(shop).toEqual({
      id: expect.any(String),
      merchant_id: owner.merchantId,
      name: 'Main store',
      sandbox: false,
      recipient: CHECKSUMMED,
      delegate: DELEGATE,
      payout_target: 'address',
      solana_payout_target: 'address',
      tron_payout_target: 'address',
      solana_recipient: null,
      tron_recipient: null,
      created_at: app.clock.now().toISOString(),
      // Decision 0038: null while the shop is active.
      archived_at: null,
    });
    const stored = await app.context.db.selectFrom('shops').selectAll().where('id', '=', shop.id).executeTakeFirstOrThrow();
    expect(stored.recipient).toBe(CHECKSUMMED);
    const read = await app.request({ method: 'GET', url: `/api/v1/shops/${shop.id}`, headers: authed(owner.token) });
    expect(read.json()).toEqual(shop);
  });

  it('a sandbox shop may omit the recipient; `address` payout targets are stored as chosen', async () => {
    const response = await create({ name: 'Sandbox', sandbox: true, solana_payout_target: 'address', tron_payout_target: 'address' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ sandbox: true, recipient: null, delegate: null, solana_payout_target: 'address', tron_payout_target: 'address' });
  });

  it('accepts an all-lowercase recipient (no checksum to check) and stores it checksummed', async () => {
    const response = await create({ name: 'Lower', sandbox: false, recipient: LOWERCASE });
    expect(response.statusCode).toBe(201);
    expect(response.json().recipient).toBe(LOWERCASE_CHECKSUMMED);
    expect(await refused(() => create({ name: 'Upper', sandbox: false, recipient: `0x${LOWERCASE.slice(2).toUpperCase()}` }))).toEqual({
      status: 400,
      code: 'invalid_recipient',
    });
  });

  it('invalid_name: empty, blank, too long, control characters, wrong type, missing', async () => {
    for (const name of ['', '   ', 'x'.repeat(101), 'bad\u0000name', 'tab\tname', 42, null]) {
      expect(await refused(() => create({ name, sandbox: true })), JSON.stringify(name)).toEqual({ status: 400, code: 'invalid_name' });
    }
    expect(await refused(() => create({ sandbox: true }))).toEqual({ status: 400, code: 'invalid_name' });
    expect((await create({ name: 'é'.repeat(100), sandbox: true })).statusCode).toBe(201);
  });

  it('invalid_recipient: missing on a live shop, bad checksum, malformed, zero address, wrong type; bad delegate', async () => {
    const badChecksum = CHECKSUMMED.replace('E0F', 'e0F');
    const cases: unknown[] = [
      { name: 'a', sandbox: false },
      { name: 'a', sandbox: false, recipient: null },
      { name: 'a', sandbox: false, recipient: badChecksum },
      { name: 'a', sandbox: false, recipient: '0x1234' },
      { name: 'a', sandbox: false, recipient: CHECKSUMMED.slice(2) },
      { name: 'a', sandbox: false, recipient: ` ${CHECKSUMMED}` },
      { name: 'a', sandbox: false, recipient: '0x0000000000000000000000000000000000000000' },
      { name: 'a', sandbox: false, recipient: 7 },
      { name: 'a', sandbox: true, recipient: badChecksum },
      { name: 'a', sandbox: false, recipient: CHECKSUMMED, delegate: badChecksum },
      { name: 'a', sandbox: false, recipient: CHECKSUMMED, delegate: 'nope' },
      { name: 'a', sandbox: false, recipient: CHECKSUMMED, delegate: 1 },
      { name: 'a', sandbox: false, recipient: CHECKSUMMED, payout_target: 'wallet' },
    ];
    for (const payload of cases) {
      expect(await refused(() => create(payload)), JSON.stringify(payload)).toEqual({ status: 400, code: 'invalid_recipient' });
    }
  });

  it('payout_target wallet while the merchant has no service wallet: wallet_not_ready (merchants-payout-targets.test.ts has the rest)', async () => {
    expect(await refused(() => create({ name: 'a', sandbox: false, payout_target: 'wallet' }))).toEqual({ status: 400, code: 'wallet_not_ready' });
  });

  it('malformed bodies: unknown field invalid_json, wrong enum or missing sandbox invalid_request, no key', async () => {
    expect(await refused(() => create({ name: 'a', sandbox: true, merchant_id: newId() }))).toEqual({ status: 400, code: 'invalid_json' });
    expect(await refused(() => create({ name: 'a' }))).toEqual({ status: 400, code: 'invalid_request' });
    expect(await refused(() => create({ name: 'a', sandbox: 'yes' }))).toEqual({ status: 400, code: 'invalid_request' });
    expect(await refused(() => create({ name: 'a', sandbox: true, payout_target: 'bank' }))).toEqual({ status: 400, code: 'invalid_request' });
    expect(
      await refused(() =>
        app.request({
          method: 'POST',
          url: `/api/v1/merchants/${owner.merchantId}/shops`,
          headers: json(authed(owner.token)),
          payload: { name: 'a', sandbox: true },
        }),
      ),
    ).toEqual({ status: 400, code: 'idempotency_key_required' });
  });

  it('one sandbox shop per merchant: sandbox_shop_limit_reached (SPEC "Limits")', async () => {
    expect((await create({ name: 'one', sandbox: true })).statusCode).toBe(201);
    expect(await refused(() => create({ name: 'two', sandbox: true }))).toEqual({ status: 400, code: 'sandbox_shop_limit_reached' });
    expect((await create({ name: 'live', sandbox: false, recipient: CHECKSUMMED })).statusCode).toBe(201);
  });

  it('concurrent sandbox creations: exactly one succeeds', async () => {
    const responses = await Promise.all([1, 2, 3, 4].map((index) => create({ name: `s${index}`, sandbox: true })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 400, 400, 400]);
    expect(responses.filter((response) => errorCode(response) === 'sandbox_shop_limit_reached')).toHaveLength(3);
  });

  it('merchants.shop_limit: shop_limit_reached; archived shops do not count', async () => {
    await app.context.db.updateTable('merchants').set({ shop_limit: 2 }).where('id', '=', owner.merchantId).execute();
    const first = (await create({ name: 'one', sandbox: false, recipient: CHECKSUMMED })).json();
    expect((await create({ name: 'two', sandbox: true })).statusCode).toBe(201);
    expect(await refused(() => create({ name: 'three', sandbox: false, recipient: CHECKSUMMED }))).toEqual({ status: 400, code: 'shop_limit_reached' });
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', first.id).execute();
    expect((await create({ name: 'three', sandbox: false, recipient: CHECKSUMMED })).statusCode).toBe(201);
  });

  it('only a merchant-wide owner session creates shops', async () => {
    const developer = await member(app.context.db, owner.merchantId, 'developer');
    expect(await refused(() => create({ name: 'a', sandbox: true }, developer.token))).toEqual({ status: 403, code: 'forbidden' });
    const someShop = await createShop(app.context.db, owner.merchantId, { sandbox: false });
    const shopOwner = await member(app.context.db, owner.merchantId, 'owner', someShop.id);
    expect(await refused(() => create({ name: 'a', sandbox: true }, shopOwner.token))).toEqual({ status: 403, code: 'forbidden' });
    const key = await createApiKey(app.context.db, { id: someShop.id, merchantId: owner.merchantId });
    expect(await refused(() => create({ name: 'a', sandbox: true }, key.token))).toEqual({ status: 403, code: 'forbidden' });
    const stranger = await createOwnerWithShop(app.context.db);
    expect(await refused(() => create({ name: 'a', sandbox: true }, stranger.session.token))).toEqual({ status: 404, code: 'not_found' });
    expect(await refused(() => create({ name: 'a', sandbox: true }, owner.token, newId()))).toEqual({ status: 404, code: 'not_found' });
  });

  it('is idempotent: the same key and body replays the stored shop; another body is 409', async () => {
    const key = newIdempotencyKey();
    const first = await create({ name: 'once', sandbox: true }, owner.token, owner.merchantId, key);
    const again = await create({ name: 'once', sandbox: true }, owner.token, owner.merchantId, key);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const conflict = await create({ name: 'twice', sandbox: true }, owner.token, owner.merchantId, key);
    expect(conflict.statusCode).toBe(409);
    expect(errorCode(conflict)).toBe('idempotency_conflict');
    const shops = await app.context.db.selectFrom('shops').select('id').where('merchant_id', '=', owner.merchantId).execute();
    expect(shops).toHaveLength(1);
  });

  it('lists shops: everything for merchant-wide people, the granted shops for shop-scoped ones, its own for a key', async () => {
    const a = (await create({ name: 'a', sandbox: false, recipient: CHECKSUMMED })).json();
    app.clock.advance(1000);
    const b = (await create({ name: 'b', sandbox: true })).json();
    const list = async (token: string) =>
      app.request({ method: 'GET', url: `/api/v1/merchants/${owner.merchantId}/shops`, headers: authed(token) });
    expect((await list(owner.token)).json()).toEqual([a, b]);
    const scoped = await member(app.context.db, owner.merchantId, 'viewer', b.id);
    expect((await list(scoped.token)).json()).toEqual([b]);
    const key = await createApiKey(app.context.db, { id: a.id, merchantId: owner.merchantId }, { scopes: ['read'] });
    expect((await list(key.token)).json()).toEqual([a]);
    const writeKey = await createApiKey(app.context.db, { id: a.id, merchantId: owner.merchantId }, { scopes: ['write'] });
    expect(errorCode(await list(writeKey.token))).toBe('forbidden');
    const stranger = await createOwnerWithShop(app.context.db);
    const hidden = await list(stranger.session.token);
    expect(hidden.statusCode).toBe(404);
  });

  describe('PATCH /shops/{id}', () => {
    let shop: { id: string; merchant_id: string };
    beforeEach(async () => {
      shop = (await create({ name: 'live', sandbox: false, recipient: CHECKSUMMED })).json();
    });

    it('changes recipient, delegate and payout targets; omitted fields stay', async () => {
      // A `wallet` target needs the merchant's service wallet on that family (merchants-payout-targets.test.ts).
      await writeServiceWallet(app.context.db, shop.merchant_id, 'tron', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', app.clock.now());
      const response = await patch(shop.id, { recipient: DELEGATE.toLowerCase(), delegate: CHECKSUMMED, tron_payout_target: 'wallet' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: shop.id,
        name: 'live',
        recipient: DELEGATE,
        delegate: CHECKSUMMED,
        solana_payout_target: 'address',
        tron_payout_target: 'wallet',
      });
      const cleared = await patch(shop.id, { delegate: null });
      expect(cleared.json()).toMatchObject({ recipient: DELEGATE, delegate: null, tron_payout_target: 'wallet' });
      const unchanged = await patch(shop.id, {});
      expect(unchanged.statusCode).toBe(200);
      expect(unchanged.json()).toEqual(cleared.json());
    });

    it('refuses bad addresses with invalid_recipient and changes nothing', async () => {
      const before = await app.context.db.selectFrom('shops').selectAll().where('id', '=', shop.id).executeTakeFirstOrThrow();
      for (const payload of [
        { recipient: '0x0000000000000000000000000000000000000000' },
        { recipient: CHECKSUMMED.replace('E0F', 'e0F') },
        { recipient: null },
        { recipient: DELEGATE, delegate: 'nope' },
      ]) {
        expect(await refused(() => patch(shop.id, payload)), JSON.stringify(payload)).toEqual({ status: 400, code: 'invalid_recipient' });
      }
      expect(await refused(() => patch(shop.id, { name: 'renamed' }))).toEqual({ status: 400, code: 'invalid_json' });
      expect(await refused(() => patch(shop.id, { solana_payout_target: 'bank' }))).toEqual({ status: 400, code: 'invalid_request' });
      const after = await app.context.db.selectFrom('shops').selectAll().where('id', '=', shop.id).executeTakeFirstOrThrow();
      expect(after).toEqual(before);
    });

    it('owner only: developer 403 forbidden, key 403 forbidden, another merchant 404 shop_not_found', async () => {
      const developer = await member(app.context.db, owner.merchantId, 'developer');
      expect(await refused(() => patch(shop.id, { recipient: DELEGATE }, developer.token))).toEqual({ status: 403, code: 'forbidden' });
      const key = await createApiKey(app.context.db, { id: shop.id, merchantId: owner.merchantId });
      expect(await refused(() => patch(shop.id, { recipient: DELEGATE }, key.token))).toEqual({ status: 403, code: 'forbidden' });
      const stranger = await createOwnerWithShop(app.context.db);
      expect(await refused(() => patch(shop.id, { recipient: DELEGATE }, stranger.session.token))).toEqual({ status: 404, code: 'shop_not_found' });
    });

    it('works through the legacy /projects alias', async () => {
      const response = await app.request({
        method: 'PATCH',
        url: `/api/v1/projects/${shop.id}`,
        headers: json(authed(owner.token, newIdempotencyKey())),
        payload: { delegate: DELEGATE },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().delegate).toBe(DELEGATE);
      const read = await app.request({ method: 'GET', url: `/api/v1/projects/${shop.id}`, headers: authed(owner.token) });
      expect(read.json().delegate).toBe(DELEGATE);
    });
  });
});
