import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { READ_TOOLS, agentJourney, dataOf, mcpClient, textOf } from './mcp-helpers.js';

// Issue 26 items 1 and 3: `ivory mcp --api-url {base_url}` with IVORY_API_KEY, the built program
// (test/global-setup.ts builds dist/) run by the SDK's own stdio client, against a listening server.

const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/cli/main.js');

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

async function connect(apiKey: string): Promise<Client> {
  const client = mcpClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, 'mcp', '--api-url', base],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), IVORY_API_KEY: apiKey },
    stderr: 'pipe',
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

describe('ivory mcp: MCP over stdio, a client of the public API', () => {
  it('stops at start, exit 1 with one line, when the server refuses IVORY_API_KEY', async () => {
    const child = spawn(process.execPath, [main, 'mcp', '--api-url', base], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), IVORY_API_KEY: 'ivk_not_a_key' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`ivory mcp: ${base} refused IVORY_API_KEY (401 unauthorized)\n`);
  }, 60_000);

  it('an agent\'s journey on a sandbox shop, as over HTTP', async () => {
    const client = await connect(owner.key.token);
    const journey = await agentJourney(client, () => app.jobs.drain());
    expect(journey.invoice).toMatchObject({ amount: '25.5', token: 'USDC', network: 'Base' });
    expect(dataOf<{ id: string }>(journey.again).id).toBe(journey.invoice.id);
    expect(dataOf(journey.open)).toMatchObject({ status: 'open', address: expect.any(String) });
    expect(dataOf(journey.funded)).toMatchObject({ status: 'funded', received: '25.5' });
    expect(textOf(journey.payments)).toMatch(/"amount": "25.5"/);
  }, 120_000);

  it('a read key sees only read tools; a write refused by the server comes back with the SPEC code', async () => {
    const reader = await connect((await createApiKey(app.database.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] })).token);
    expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS].sort());
    // A hidden tool is not callable either.
    const refused = await reader.callTool({ name: 'create_invoice', arguments: { amount: '5', token: 'USDC', network: 'Base' } }).catch((error: Error) => error);
    expect(refused instanceof Error ? refused.message : textOf(refused)).toMatch(/create_invoice.*not found|not found.*create_invoice/i);

    const writer = await connect(owner.key.token);
    const tooMuch = await writer.callTool({ name: 'create_invoice', arguments: { amount: '20000', token: 'USDC', network: 'Base' } });
    expect(tooMuch.isError).toBe(true);
    expect(textOf(tooMuch)).toMatch(/^Error sandbox_amount_limit: /);
  }, 120_000);
});
