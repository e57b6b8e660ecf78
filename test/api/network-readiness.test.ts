import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { BASE, BASE_USDC, createDeposit, createInvoice, usdc } from './issuances-helpers.js';

// Issue 20 item 3, decision 0023. SPEC "Network": `ready` marks a token usable, and the list keeps
// every enabled network with a ready token (sandbox shops pick from it); what this deployment can
// take real money on is the additive `live`, true exactly where a live invoice gets past
// network_not_ready (a chain adapter serves the network: for EVM, rpc_url and both factories in
// the catalogue file). network_not_ready names chain_id and says how an operator adds a node.

interface ListedNetwork {
  readonly chain_id: number;
  readonly live: boolean;
  readonly tokens: readonly { readonly status?: string }[];
}

async function networks(app: TestApp): Promise<ListedNetwork[]> {
  const response = await app.request({ method: 'GET', url: '/api/v1/networks' });
  expect(response.statusCode).toBe(200);
  return response.json();
}

async function merchantNetworks(app: TestApp, owner: Awaited<ReturnType<typeof createOwnerWithShop>>): Promise<ListedNetwork[]> {
  const response = await app.request({ method: 'GET', url: `/api/v1/merchants/${owner.merchant.id}/networks`, headers: authed(owner.session.token) });
  expect(response.statusCode).toBe(200);
  return response.json();
}

/** A live shop of the owner's merchant and a write key for it. */
async function liveShopOf(app: TestApp, owner: Awaited<ReturnType<typeof createOwnerWithShop>>) {
  const shop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
  return { shopId: shop.id, token: (await createApiKey(app.context.db, { id: shop.id, merchantId: owner.merchant.id })).token };
}

describe('a fresh install: no node configured', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists every enabled network with its ready tokens as before, each live: false', async () => {
    const listed = await networks(app);
    expect(listed.map((network) => network.chain_id)).toEqual(app.context.catalogue.publicNetworks().map((network) => network.chain_id));
    expect(listed.length).toBeGreaterThan(0);
    for (const network of listed) {
      expect(network.live).toBe(false);
      expect(network.tokens.some((token) => token.status === 'ready')).toBe(true);
    }
    const owner = await createOwnerWithShop(app.context.db);
    expect((await merchantNetworks(app, owner)).every((network) => network.live === false)).toBe(true);
  });

  it('a sandbox shop still creates invoices with a ready token of a network that is not live', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) });
    expect(response.statusCode, response.body).toBe(202);
  });

  it('a live shop answers network_not_ready naming chain_id, with how an operator adds a node, for invoices and deposits', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const live = await liveShopOf(app, owner);
    for (const response of [
      await createInvoice(app, live.token, live.shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }),
      await createDeposit(app, live.token, live.shopId, { chain_id: BASE, token: BASE_USDC }),
    ]) {
      expect(response.statusCode).toBe(400);
      const error = response.json().error;
      expect(error.code).toBe('network_not_ready');
      expect(error.message).toBe('network_not_ready');
      expect(Object.keys(error.details).sort()).toEqual(['field', 'reason']);
      expect(error.details.field).toBe('chain_id');
      for (const words of ['no node configured for Base (chain_id 8453)', 'NETWORKS_FILE', 'rpc_url', 'main_factory', 'invoice_factory', 'npx ivory contracts deploy', 'live: true']) {
        expect(error.details.reason).toContain(words);
      }
    }
  });
});

describe('a deployment with a chain adapter for one network', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({}, undefined, { liveChainAdapters: new Map([[BASE, new RecordingChainAdapter()]]) });
  });
  afterAll(async () => {
    await app.close();
  });

  it('says live: true for that network only, on both lists', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (const listed of [await networks(app), await merchantNetworks(app, owner)]) {
      expect(listed.filter((network) => network.live).map((network) => network.chain_id)).toEqual([BASE]);
    }
  });

  it('live: true is where a live invoice is accepted, and its checkout shows the same record', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const live = await liveShopOf(app, owner);
    const response = await createInvoice(app, live.token, live.shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) });
    expect(response.statusCode, response.body).toBe(202);
    const checkout = await app.request({ method: 'GET', url: `/api/v1/checkout/${response.json().payment_url.split('/').pop()}` });
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(checkout.json().network).toEqual((await networks(app)).find((network) => network.chain_id === BASE));
    expect(checkout.json().network.live).toBe(true);
  });
});
