import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { READ_TOOLS, WRITE_TOOLS, agentJourney, dataOf, mcpClient, textOf } from './mcp-helpers.js';

// Issue 26 items 1 and 3: the MCP server at {base_url}/mcp over streamable HTTP, driven by the
// SDK's own client over a real listener; every tool call goes through the public API in-process.

let app: TestApp;
let base: string;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
const open: Client[] = [];

beforeAll(async () => {
  app = await createTestApp();
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/v1`;
  owner = await createOwnerWithShop(app.database.db, { sandbox: true });
});
afterAll(async () => {
  for (const client of open) await client.close();
  await app.close();
});

async function connect(token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = mcpClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }));
  open.push(client);
  return client;
}

async function keyWith(scopes: ('read' | 'write')[]) {
  return (await createApiKey(app.database.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes })).token;
}

describe('MCP over streamable HTTP at {base_url}/mcp', () => {
  it('an agent\'s journey on a sandbox shop: networks → invoice → payment → status → payments, in decimal token amounts', async () => {
    const client = await connect(owner.key.token);
    const journey = await agentJourney(client, () => app.jobs.drain());

    expect(journey.invoice).toMatchObject({ amount: '25.5', token: 'USDC', network: 'Base' });
    expect(textOf(journey.created)).toMatch(/Idempotency-Key mcp-create_invoice-[0-9a-f]{32} \(derived from the arguments/);
    // The same call again is a retry: the same invoice, not a second one.
    expect(dataOf<{ id: string }>(journey.again).id).toBe(journey.invoice.id);
    expect(dataOf(journey.open)).toMatchObject({ status: 'open', received: '0', address: expect.any(String), payment_url: expect.stringMatching(/^http/) });
    expect(journey.paid.isError).toBeFalsy();
    expect(dataOf(journey.funded)).toMatchObject({ status: 'funded', received: '25.5' });
    const payments = dataOf<{ payments: { type: string; amount: string; token: string; sandbox: boolean }[] }>(journey.payments).payments;
    expect(payments).toContainEqual(expect.objectContaining({ amount: '25.5', token: 'USDC', sandbox: true }));
  });

  it('lists every tool, with all three annotations stated, to a read+write key; the payment flow is a resource and a prompt', async () => {
    const client = await connect(owner.key.token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean) });
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
    }
    const resource = await client.readResource({ uri: 'ivory://guide/payment-flow' });
    expect(JSON.stringify(resource.contents)).toMatch(/payment_url/);
    const prompt = await client.getPrompt({ name: 'payment_flow' });
    expect(JSON.stringify(prompt.messages)).toMatch(/create_invoice/);
  });

  it('a read key sees only read tools, and a write-only key no read tool (SPEC "Authentication" 3: scopes are exact)', async () => {
    const reader = await connect(await keyWith(['read']));
    expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    const writer = await connect(await keyWith(['write']));
    const names = (await writer.listTools()).tools.map((tool) => tool.name);
    // Simulations read the issuance first (its token's decimals), so they need both scopes.
    expect(names.sort()).toEqual(['get_terms', 'list_deliveries', 'list_events', 'list_networks', ...WRITE_TOOLS.filter((name) => !name.startsWith('simulate_'))].sort());
  });

  it('a refused call is a tool error carrying the SPEC code and a sentence to act on', async () => {
    const client = await connect(owner.key.token);
    const below = await client.callTool({ name: 'create_invoice', arguments: { amount: '0.5', token: 'USDC', network: 'Base' } });
    expect(below.isError).toBe(true);
    expect(textOf(below)).toMatch(/^Error amount_below_minimum: .*minimum_payment/);
    expect(below.structuredContent).toMatchObject({ error: { code: 'amount_below_minimum' } });

    const unknown = await client.callTool({ name: 'create_invoice', arguments: { amount: '5', token: 'USDC', network: 'Atlantis' } });
    expect(textOf(unknown)).toMatch(/^Error unsupported_network: No network is named "Atlantis"\. The networks are: .*Base/);
    const missing = await client.callTool({ name: 'get_issuance', arguments: { id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.structuredContent).toMatchObject({ error: { code: 'not_found' } });
  });

  it('refuses a request with a foreign Origin (DNS rebinding), a session token and a missing key', async () => {
    await expect(connect(owner.key.token, { origin: 'https://evil.example' })).rejects.toThrow(/"code":"forbidden".*Invalid Origin: evil\.example/);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });
    const foreign = await post({ authorization: `Bearer ${owner.key.token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: { code: 'forbidden', message: 'forbidden', details: { field: 'Origin', reason: 'Invalid Origin: evil.example' } } });
    // fetch may not set Host: the request is injected instead.
    const rebound = await app.request({
      method: 'POST',
      url: '/api/v1/mcp',
      headers: { host: 'evil.example', authorization: `Bearer ${owner.key.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: initialize,
    });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json()).toMatchObject({ error: { code: 'forbidden', details: { field: 'Host' } } });
    expect((await post({ authorization: `Bearer ${owner.key.token}`, origin: 'http://ivory.test' })).status).toBe(200);
    const session = await post({ authorization: `Bearer ${owner.session.token}` });
    expect(session.status).toBe(403);
    expect(await session.json()).toEqual({ error: { code: 'forbidden', message: 'forbidden' } });
    expect((await post({})).status).toBe(401);
  });

  it('serves 2025-era hosts too (plain JSON-RPC POSTs without the 2026 envelope: the SDK\'s stateless fallback)', async () => {
    const rpc = async (token: string, method: string, params: Record<string, unknown>) => {
      const answer = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      });
      expect(answer.status, method).toBe(200);
      const text = await answer.text();
      // Either a JSON body or one SSE event carrying it.
      return JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '')) as { result: Record<string, unknown> };
    };
    const listed = await rpc(await keyWith(['read']), 'tools/list', {});
    expect((listed.result.tools as { name: string }[]).map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    const called = await rpc(owner.key.token, 'tools/call', { name: 'list_networks', arguments: {} });
    expect(JSON.stringify(called.result.content)).toContain('Base');
  });

  it('answers transport refusals with the SDK\'s status and SPEC\'s error envelope, like every route under {base_url}', async () => {
    const stream = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${owner.key.token}`, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(await stream.json()).toMatchObject({ error: { code: 'invalid_request', details: { field: 'method' } } });
    const noAccept = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noAccept.status).toBe(406);
    expect(await noAccept.json()).toMatchObject({ error: { code: 'invalid_request', details: { field: 'Accept', reason: expect.any(String) } } });
  });
});
