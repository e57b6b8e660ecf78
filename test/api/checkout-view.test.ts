import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { admin, createAdminApp } from './admin-helpers.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  cancel,
  createDeposit,
  createInvoice,
  openInvoice,
  pay,
  setEnabled,
  transfersOf,
  usdc,
} from './issuances-helpers.js';

// SPEC "Checkout", "Checkout group", "Public" (GET /checkout/{public_id}).

const PAY_URL = 'https://pay.ivory.test';
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ PAY_URL });
});
afterAll(async () => {
  await app.close();
});

function checkout(publicId: string) {
  return app.request({ method: 'GET', url: `/api/v1/checkout/${encodeURIComponent(publicId)}` });
}

async function checkoutBody(publicId: string) {
  const response = await checkout(publicId);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

type FieldType = 'string' | 'integer' | 'boolean' | 'object' | 'array' | 'timestamp' | 'timestamp|null' | 'string|null' | 'uuid' | 'true';

/** SPEC "Checkout", field by field, with the types it lists. */
const CHECKOUT_FIELDS: Record<string, FieldType> = {
  public_id: 'string',
  shop_id: 'uuid',
  kind: 'string',
  family: 'string',
  chain_id: 'integer',
  token: 'string',
  token_decimals: 'integer',
  network: 'object',
  amount: 'string',
  address: 'string',
  status: 'string',
  cancelled_at: 'timestamp|null',
  /** Issue 12: why cancelled_at is set (expired, merchant, merchant_blocked), null while open. */
  cancel_reason: 'string|null',
  disabled_at: 'timestamp|null',
  expires_at: 'timestamp',
  description: 'string',
  return_url: 'string',
  branding: 'object',
  merchant_name: 'string',
  sandbox: 'boolean',
  tx_hash: 'string',
  received: 'string',
  payment_url: 'string',
};

/** SPEC "Checkout group". */
const GROUP_FIELDS: Record<string, FieldType> = {
  group: 'true',
  public_id: 'string',
  shop_id: 'uuid',
  kind: 'string',
  amount: 'string',
  status: 'string',
  cancelled_at: 'timestamp|null',
  /** Issue 12: why cancelled_at is set (expired, merchant, merchant_blocked), null while open. */
  cancel_reason: 'string|null',
  disabled_at: 'timestamp|null',
  expires_at: 'timestamp',
  description: 'string',
  return_url: 'string',
  branding: 'object',
  merchant_name: 'string',
  sandbox: 'boolean',
  paid_public_id: 'string|null',
  payment_url: 'string',
  options: 'array',
};

/** SPEC "Network". */
const NETWORK_FIELDS: Record<string, FieldType> = {
  chain_id: 'integer',
  name: 'string',
  native_symbol: 'string',
  explorer_url: 'string',
  main_factory: 'string',
  invoice_factory: 'string',
  start_block: 'integer',
  tokens: 'array',
  minimum_payment: 'string',
  family: 'string',
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'timestamp':
      return typeof value === 'string' && ISO.test(value);
    case 'timestamp|null':
      return value === null || (typeof value === 'string' && ISO.test(value));
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'uuid':
      return typeof value === 'string' && UUID.test(value);
    case 'true':
      return value === true;
  }
}

/** Every listed field present with its type, and nothing beyond the list. */
function expectShape(body: Record<string, unknown>, fields: Record<string, FieldType>, except: readonly string[] = []) {
  const expected = Object.keys(fields).filter((field) => !except.includes(field));
  expect(Object.keys(body).sort()).toEqual(expected.sort());
  for (const field of expected) {
    const type = fields[field]!;
    expect(hasType(body[field], type), `${field} should be ${type}, got ${JSON.stringify(body[field])}`).toBe(true);
  }
}

function expectNetwork(network: Record<string, unknown>, chainId: number) {
  for (const [field, type] of Object.entries(NETWORK_FIELDS)) {
    expect(hasType(network[field], type), `network.${field} should be ${type}`).toBe(true);
  }
  expect(network.chain_id).toBe(chainId);
}

describe('GET /checkout/{public_id} for an invoice', () => {
  it('before allocation: registering with an empty address; after: open with the address (SPEC "Checkout": empty until allocated)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, {
      chain_id: BASE,
      token: BASE_USDC,
      amount: usdc(100),
      description: 'Order #42',
      return_url: 'https://shop.example/thanks',
    });
    expect(created.statusCode).toBe(202);
    const invoice = created.json();

    const before = await checkoutBody(invoice.public_id);
    expectShape(before, CHECKOUT_FIELDS);
    expect(before).toMatchObject({
      public_id: invoice.public_id,
      shop_id: owner.shop.id,
      kind: 'invoice',
      family: 'evm',
      chain_id: BASE,
      token: BASE_USDC,
      token_decimals: 6,
      amount: usdc(100),
      address: '',
      status: 'registering',
      cancelled_at: null,
      disabled_at: null,
      expires_at: invoice.expires_at,
      description: 'Order #42',
      return_url: 'https://shop.example/thanks',
      branding: { name: 'Test shop' },
      merchant_name: 'Test merchant',
      sandbox: true,
      tx_hash: '',
      received: '0',
      payment_url: `${PAY_URL}/${invoice.public_id}`,
    });
    // SPEC "Checkout": network is a Network record as GET /networks lists it.
    const networks = (await app.request({ method: 'GET', url: '/api/v1/networks' })).json() as { chain_id: number }[];
    expect(before.network).toEqual(networks.find((network) => network.chain_id === BASE));
    expectNetwork(before.network, BASE);
    // The same payment_url as the authenticated view.
    expect(before.payment_url).toBe(invoice.payment_url);

    await app.jobs.drain();
    const after = await checkoutBody(invoice.public_id);
    expectShape(after, CHECKOUT_FIELDS);
    expect(after.status).toBe('open');
    expect(after.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(after.tx_hash).toBe('');
  });

  it('received and tx_hash follow confirmed transfers (SPEC "Checkout": tx_hash empty until known)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(40));
    const partial = await checkoutBody(invoice.public_id);
    const [first] = await transfersOf(app, invoice.id);
    expect(partial).toMatchObject({ status: 'open', received: usdc(40), tx_hash: first!.tx_hash });

    app.clock.advance(1000);
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(60));
    const funded = await checkoutBody(invoice.public_id);
    const transfers = await transfersOf(app, invoice.id);
    expect(funded).toMatchObject({ status: 'funded', received: usdc(100), tx_hash: transfers.at(-1)!.tx_hash });
  });

  it('branding: the branding name and logo URL when the shop has them, else the shop name', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const assetId = newId();
    await app.context.db
      .insertInto('branding_assets')
      .values({ id: assetId, shop_id: owner.shop.id, content_type: 'image/png', bytes: Buffer.from([0x89, 0x50]), sha256: '00'.repeat(32) })
      .execute();
    await app.context.db
      .updateTable('shops')
      .set({ branding_name: 'Acme Coffee', branding_logo_asset_id: assetId })
      .where('id', '=', owner.shop.id)
      .execute();
    await app.context.db.updateTable('merchants').set({ name: 'Acme Holdings' }).where('id', '=', owner.merchant.id).execute();
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const body = await checkoutBody(invoice.public_id);
    expect(body.branding).toEqual({ name: 'Acme Coffee', logo_url: `http://ivory.test/api/v1/assets/${assetId}` });
    expect(body.merchant_name).toBe('Acme Holdings');
    // The logo URL names a served asset.
    const logo = await app.request({ method: 'GET', url: `/api/v1/assets/${assetId}` });
    expect(logo.statusCode).toBe(200);
  });

  it('a cancelled invoice: cancelled_at set, status unchanged (SPEC "States and transitions")', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await cancel(app, owner.key.token, owner.shop.id, invoice.id)).statusCode).toBe(200);
    const body = await checkoutBody(invoice.public_id);
    expect(body.status).toBe('open');
    expect(body.cancelled_at).toMatch(ISO);
  });

  it('cancel_reason says why cancelled_at is set: merchant (cancel), expired (expiry job), merchant_blocked (operator block); null while open (issue 12)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const byMerchant = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await checkoutBody(byMerchant.public_id)).cancel_reason).toBeNull();
    expect((await cancel(app, owner.key.token, owner.shop.id, byMerchant.id)).statusCode).toBe(200);
    expect((await checkoutBody(byMerchant.public_id)).cancel_reason).toBe('merchant');

    const expiring = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { expires_in: '1d' });
    app.clock.advance(86_400_000);
    await app.jobs.drain();
    const expired = await checkoutBody(expiring.public_id);
    expect(expired.cancelled_at).toMatch(ISO);
    expect(expired.cancel_reason).toBe('expired');

    const operatorApp = await createAdminApp();
    try {
      const blocked = await createOwnerWithShop(operatorApp.context.db);
      const invoice = await openInvoice(operatorApp, blocked.key.token, blocked.shop.id, usdc(10));
      expect((await admin(operatorApp, 'POST', `/merchants/${blocked.merchant.id}/block`, { payload: { reason: 'fraud' } })).statusCode).toBe(200);
      const body = (await operatorApp.request({ method: 'GET', url: `/api/v1/checkout/${invoice.public_id}` })).json();
      expect(body.cancel_reason).toBe('merchant_blocked');
    } finally {
      await operatorApp.close();
    }
  });

  it('answers without caching', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const response = await checkout(invoice.public_id);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('GET /checkout/{public_id} for a group (SPEC "Checkout group")', () => {
  it('the group with complete options without payment_url; an option id gives that option\'s Checkout', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '10.5',
      description: 'Group order',
    });
    expect(created.statusCode, created.body).toBe(202);
    const group = created.json();

    const before = await checkoutBody(group.public_id);
    expectShape(before, GROUP_FIELDS);
    expect(before).toMatchObject({
      group: true,
      public_id: group.public_id,
      shop_id: owner.shop.id,
      kind: 'invoice',
      amount: '10.5',
      status: 'registering',
      description: 'Group order',
      paid_public_id: null,
      payment_url: `${PAY_URL}/${group.public_id}`,
      merchant_name: 'Test merchant',
      branding: { name: 'Test shop' },
      sandbox: true,
    });
    expect(before.options).toHaveLength(2);
    for (const option of before.options) {
      expectShape(option, CHECKOUT_FIELDS, ['payment_url']);
      expect(option.address).toBe('');
    }
    expect(before.options.map((option: { chain_id: number }) => option.chain_id)).toEqual([BASE, ARBITRUM]);
    expectNetwork(before.options[1].network, ARBITRUM);

    await app.jobs.drain();
    const after = await checkoutBody(group.public_id);
    expect(after.status).toBe('open');
    for (const option of after.options) {
      expect(option.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(option.amount).toBe('10500000');
    }

    const [first, second] = group.options as { id: string; public_id: string }[];
    const option = await checkoutBody(second!.public_id);
    expectShape(option, CHECKOUT_FIELDS);
    expect(option).toMatchObject({
      public_id: second!.public_id,
      chain_id: ARBITRUM,
      token: ARBITRUM_USDC,
      amount: '10500000',
      status: 'open',
      payment_url: `${PAY_URL}/${second!.public_id}`,
      description: 'Group order',
    });
    expect(option).toEqual({ ...after.options[1], payment_url: `${PAY_URL}/${second!.public_id}` });

    // Paid through the first option: the group follows it and names it.
    await pay(app, owner.key.token, owner.shop.id, first!.id, '10500000');
    const paid = await checkoutBody(group.public_id);
    expect(paid).toMatchObject({ status: 'funded', paid_public_id: first!.public_id });
    expect(paid.options[0]).toMatchObject({ status: 'funded', received: '10500000' });
    expect(paid.options[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a cancelled group: the group and its options carry cancelled_at', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '5',
    });
    const group = created.json();
    await app.jobs.drain();
    expect((await cancel(app, owner.key.token, owner.shop.id, group.id)).statusCode).toBe(200);
    const body = await checkoutBody(group.public_id);
    expect(body.cancelled_at).toMatch(ISO);
    for (const option of body.options) expect(option.cancelled_at).toBe(body.cancelled_at);
  });
});

describe('GET /checkout/{public_id} for deposits', () => {
  it('a deposit: kind deposit, amount "0" (no fixed amount), expires_at null (deposits never expire)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect(created.statusCode, created.body).toBe(202);
    const deposit = created.json();
    await app.jobs.drain();
    const body = await checkoutBody(deposit.public_id);
    expectShape(body, { ...CHECKOUT_FIELDS, expires_at: 'timestamp|null' });
    expect(body).toMatchObject({ kind: 'deposit', amount: '0', expires_at: null, status: 'open', disabled_at: null });
    expect(body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    await pay(app, owner.key.token, owner.shop.id, deposit.id, usdc(3));
    expect((await checkoutBody(deposit.public_id)).received).toBe(usdc(3));

    expect((await setEnabled(app, owner.key.token, owner.shop.id, deposit.id, false)).statusCode).toBe(200);
    expect((await checkoutBody(deposit.public_id)).disabled_at).toMatch(ISO);
  });

  it('a deposit group: group true, amount "0", one reusable address per option', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createDeposit(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
    });
    expect(created.statusCode, created.body).toBe(202);
    await app.jobs.drain();
    const body = await checkoutBody(created.json().public_id);
    expectShape(body, { ...GROUP_FIELDS, expires_at: 'timestamp|null' });
    expect(body).toMatchObject({ group: true, kind: 'deposit', amount: '0', expires_at: null, paid_public_id: null, status: 'open' });
    const addresses = body.options.map((option: { address: string }) => option.address);
    expect(new Set(addresses).size).toBe(2);
  });
});

describe('GET /checkout/{public_id} errors', () => {
  it('an unknown id is 400 not_found (SPEC "Public")', async () => {
    // Longer than any public id, but within the router's path-parameter limit (100 characters; beyond it Fastify answers 414).
    for (const id of ['AAAAAAAAAAAAAAAA', 'nope', 'a'.repeat(65), 'a'.repeat(100), '../networks', "x' or '1'='1", newId()]) {
      const response = await checkout(id);
      expect(response.statusCode, id).toBe(400);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
    }
  });

  it('an issuance id (not its public id) is not a public id', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const response = await checkout(invoice.id);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('not_found');
  });
});
