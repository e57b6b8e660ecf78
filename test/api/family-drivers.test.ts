import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE_FILE } from '../../src/catalogue/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { admin, ADMIN_TOKEN } from './admin-helpers.js';
import { BASE, BASE_USDC, createInvoice, usdc } from './issuances-helpers.js';

// Issue 21 items 1 and 3, decision 0028: the composition root starts every registered family
// driver with the catalogue's networks of its family. Every family has a driver now (EVM; Tron,
// issue 23; Solana, issue 24): a network with valid access is live, one without access is listed
// and not live (network_not_ready), and the admin endpoint shows each live network alike.

const TRON = 728126428;
const SOLANA = 900;
const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const root = mkdtempSync(join(tmpdir(), 'ivory-family-drivers-'));

/** The bundled catalogue, with access for Base (a node that is not there), Tron and Solana. */
function catalogueWithAccess(): string {
  const bundled = JSON.parse(readFileSync(DEFAULT_CATALOGUE_FILE, 'utf8')) as { networks: Record<string, unknown>[] };
  const access: Record<number, Record<string, unknown>> = {
    // Port 9 (discard): nothing answers, and start-up must not need it to.
    [BASE]: {
      rpc_urls: ['http://127.0.0.1:9', 'http://127.0.0.1:10'],
      main_factory: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      invoice_factory: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      confirmations: 3,
    },
    [TRON]: { api_url: 'http://127.0.0.1:9', api_key: 'secret-key', main_factory: TRON_USDT, invoice_factory: TRON_USDT },
    [SOLANA]: { rpc_url: 'http://127.0.0.1:9', commitment: 'finalized' },
  };
  // Icons are named relative to the catalogue file: point them back at the bundled ones.
  const withIcons = (token: Record<string, unknown>) => (typeof token.icon === 'string' ? { ...token, icon: resolve(dirname(DEFAULT_CATALOGUE_FILE), token.icon) } : token);
  const networks = bundled.networks.map((network) => ({
    ...network,
    tokens: (network.tokens as Record<string, unknown>[]).map(withIcons),
    ...access[network.chain_id as number],
  }));
  const file = join(root, 'networks.json');
  writeFileSync(file, JSON.stringify({ networks }));
  return file;
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ ADMIN_TOKEN, NETWORKS_FILE: catalogueWithAccess() });
});
afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe('family drivers: live where a driver runs the family', () => {
  it('networks of every family with valid access are live; the others are listed and not live', async () => {
    expect(app.context.catalogue.network(TRON)?.chain?.family).toBe('tron');
    expect(app.context.catalogue.network(SOLANA)?.chain?.family).toBe('solana');
    const listed = (await app.request({ method: 'GET', url: '/api/v1/networks' })).json() as { chain_id: number; live: boolean }[];
    expect(listed.filter((network) => network.live).map((network) => network.chain_id).sort((left, right) => left - right)).toEqual([SOLANA, BASE, TRON]);
    expect(listed.some((network) => !network.live)).toBe(true);
  });

  it('a live invoice on a network without access answers network_not_ready; on the live ones it gets past the network check', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const shop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const key = await createApiKey(app.context.db, { id: shop.id, merchantId: owner.merchant.id });
    const ethereum = app.context.catalogue.network(1);
    const ethereumToken = ethereum?.tokens[0]?.address ?? '';
    const unreachable = await createInvoice(app, key.token, shop.id, { chain_id: 1, token: ethereumToken, amount: usdc(10) });
    expect(unreachable.statusCode).toBe(400);
    expect(unreachable.json().error.code).toBe('network_not_ready');
    expect(app.context.chains.adapterFor(false, 1, 'evm')).toBeUndefined();
    const base = await createInvoice(app, key.token, shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) });
    expect(base.json().error?.code).not.toBe('network_not_ready');
    expect(app.context.chains.adapterFor(false, SOLANA, 'solana')).toBeDefined();
  });

  it('GET /admin/v1/networks lists every running network in one shape, with no node answering and no node URL shown', async () => {
    const response = await admin(app, 'GET', '/networks');
    expect(response.statusCode).toBe(200);
    const networks = response.json() as Record<string, unknown>[];
    expect(networks.map((network) => network.chain_id)).toEqual([BASE, TRON, SOLANA]);
    expect(networks[0]).toEqual({
      chain_id: BASE,
      name: 'Base',
      relayer_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      relayer_balance: null,
      payouts_waiting_gas: 0,
      head_block: null,
      last_scanned_block: null,
      confirmations: 3,
    });
    expect(networks[2]).toEqual({
      chain_id: SOLANA,
      name: 'Solana',
      relayer_address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
      relayer_balance: null,
      payouts_waiting_gas: 0,
      head_block: null,
      last_scanned_block: null,
      confirmations: 0,
    });
    expect(JSON.stringify(networks)).not.toContain('127.0.0.1');
  });
});
