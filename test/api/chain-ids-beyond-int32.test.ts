import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE_FILE } from '../../src/catalogue/index.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { BASE, TRON, createDeposit, createInvoice, giveTronRecipient, read, simulate, usdc } from './issuances-helpers.js';

// Issue 23 item 2: chain ids above 2³¹ — Tron's Nile test network is 3448148188, EVM's Palm
// 11297108109. Stored in 32-bit columns, invoice creation on such a network answered 500
// ("out of range for type integer"); every chain_id column is a bigint now, read back as a number.

const NILE = 3_448_148_188;
const PALM = 11_297_108_109;
const root = mkdtempSync(join(tmpdir(), 'ivory-big-chain-ids-'));

/** The bundled catalogue plus a copy of its Tron network as Nile and of Base as Palm. */
function catalogueWithBigIds(): string {
  const bundled = JSON.parse(readFileSync(DEFAULT_CATALOGUE_FILE, 'utf8')) as { networks: Record<string, unknown>[] };
  const withIcons = (token: Record<string, unknown>) => (typeof token.icon === 'string' ? { ...token, icon: resolve(dirname(DEFAULT_CATALOGUE_FILE), token.icon) } : token);
  const networks: Record<string, unknown>[] = bundled.networks.map((network) => ({ ...network, tokens: (network.tokens as Record<string, unknown>[]).map(withIcons) }));
  const copy = (chainId: number, from: number, name: string) => ({ ...(networks.find((network) => network.chain_id === from) as Record<string, unknown>), chain_id: chainId, name });
  const file = join(root, 'networks.json');
  writeFileSync(file, JSON.stringify({ networks: [...networks, copy(NILE, TRON, 'Tron Nile'), copy(PALM, BASE, 'Palm')] }));
  return file;
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ NETWORKS_FILE: catalogueWithBigIds() });
});
afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe('chain ids beyond 32 bits (issue 23 item 2)', () => {
  it('invoices and deposits on Nile and Palm are created, paid, read and listed with their chain ids as numbers', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await giveTronRecipient(app, owner.shop.id);
    const token = owner.key.token;
    const networks = (await app.request({ method: 'GET', url: '/api/v1/networks' })).json() as { chain_id: number; tokens: { address: string; status?: string }[] }[];
    for (const chainId of [NILE, PALM]) {
      const network = networks.find((candidate) => candidate.chain_id === chainId);
      expect(network, `network ${chainId}`).toBeDefined();
      const asset = network?.tokens[0]?.address as string;
      const invoice = await createInvoice(app, token, owner.shop.id, { chain_id: chainId, token: asset, amount: usdc(10) });
      expect(invoice.statusCode, invoice.body).toBe(202);
      expect(invoice.json().chain_id).toBe(chainId);
      const deposit = await createDeposit(app, token, owner.shop.id, { chain_id: chainId, token: asset });
      expect(deposit.statusCode, deposit.body).toBe(202);
      await app.jobs.drain();
      const paid = await simulate(app, token, owner.shop.id, { issuance_id: invoice.json().id, kind: 'transfer.confirmed', amount: usdc(10) });
      expect(paid.statusCode, paid.body).toBe(200);
      await app.jobs.drain();
      const stored = await read(app, token, owner.shop.id, invoice.json().id);
      expect(stored).toMatchObject({ chain_id: chainId, status: 'funded', received: usdc(10) });
      const listed = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/issuances?chain_id=${chainId}`, headers: authed(token) });
      expect(listed.statusCode).toBe(200);
      expect((listed.json() as { data: { id: string; chain_id: number }[] }).data.map((row) => [row.id, row.chain_id]).toSorted()).toEqual(
        [[invoice.json().id, chainId], [deposit.json().id, chainId]].toSorted(),
      );
    }
  });
});
