import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

// SPEC "Public": GET /networks and GET /token-icons/{chain_id}/{token}/{hash}, no credentials.
describe('catalogue public routes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('GET /networks answers the public list, enabled networks with a ready token (SPEC "Network"), none live without a node (decision 0023)', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/networks' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual(JSON.parse(JSON.stringify(app.context.catalogue.publicNetworks())).map((network: object) => ({ ...network, live: false })));
    expect(body.length).toBeGreaterThan(0);
    for (const network of body) {
      expect(network.tokens.some((token: { status?: string }) => token.status === 'ready')).toBe(true);
      expect(network).not.toHaveProperty('wallet_bridge');
    }
    const solana = body.find((network: { family: string }) => network.family === 'solana');
    expect(solana?.tokens[0]).toHaveProperty('icon_url');
  });

  it('GET /networks ignores credentials: a bogus bearer still gets the list (SPEC "Authentication" 1)', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/networks', headers: { authorization: 'Bearer nonsense' } });
    expect(response.statusCode).toBe(200);
  });

  it('serves a token icon by content hash, immutable and cacheable', async () => {
    const network = app.context.catalogue.publicNetworks()[0]!;
    const token = network.tokens.find((candidate) => candidate.icon_url !== undefined)!;
    const response = await app.request({ method: 'GET', url: `/api/v1${token.icon_url!}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const hash = token.icon_url!.split('/').at(-1);
    expect(createHash('sha256').update(response.rawPayload).digest('hex')).toBe(hash);
  });

  it('answers 404 not_found JSON for a hash mismatch, a bad chain id or a non-hex hash (SPEC "Public")', async () => {
    const network = app.context.catalogue.publicNetworks()[0]!;
    const token = network.tokens.find((candidate) => candidate.icon_url !== undefined)!;
    const hash = token.icon_url!.split('/').at(-1)!;
    const address = encodeURIComponent(token.address);
    const urls = [
      `/api/v1/token-icons/${network.chain_id}/${address}/${'0'.repeat(64)}`,
      `/api/v1/token-icons/${network.chain_id}/${address}/${hash.toUpperCase()}`,
      `/api/v1/token-icons/${network.chain_id}/${address}/${hash.slice(1)}`,
      `/api/v1/token-icons/0/${address}/${hash}`,
      `/api/v1/token-icons/-1/${address}/${hash}`,
      `/api/v1/token-icons/01/${address}/${hash}`,
      `/api/v1/token-icons/abc/${address}/${hash}`,
      `/api/v1/token-icons/99999999999999999999/${address}/${hash}`,
      `/api/v1/token-icons/${network.chain_id}/0x0000000000000000000000000000000000000001/${hash}`,
      `/api/v1/token-icons/${network.chain_id + 1}/${address}/${hash}`,
    ];
    for (const url of urls) {
      const response = await app.request({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
    }
  });

  it('EVM token addresses match icons case-insensitively', async () => {
    const network = app.context.catalogue.publicNetworks().find((candidate) => candidate.family === 'evm')!;
    const token = network.tokens.find((candidate) => candidate.icon_url !== undefined)!;
    const hash = token.icon_url!.split('/').at(-1)!;
    const response = await app.request({ method: 'GET', url: `/api/v1/token-icons/${network.chain_id}/${token.address.toLowerCase()}/${hash}` });
    expect(response.statusCode).toBe(200);
  });
});
