import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { mcpClient } from './mcp-helpers.js';

// Issue 26 item 4: the MCP tools' input schemas come from the same route schemas as the OpenAPI
// document, so the two cannot drift. Written out here independently of src/agents: which tool
// field is which route input. A tool field in neither list fails, so a new field is classified.

type Json = Record<string, unknown>;
const IDEMPOTENCY_KEY = ['header', 'Idempotency-Key'] as const;

const FROM_ROUTES: Readonly<Record<string, Readonly<Record<string, readonly [string, string]>>>> = {
  list_networks: {},
  get_terms: {},
  create_invoice: {
    amount: ['createInvoice', 'amount'],
    expires_in: ['createInvoice', 'expires_in'],
    external_id: ['createInvoice', 'external_id'],
    description: ['createInvoice', 'description'],
    return_url: ['createInvoice', 'return_url'],
    idempotency_key: IDEMPOTENCY_KEY,
  },
  create_multi_option_invoice: {
    amount: ['createInvoice', 'amount'],
    expires_in: ['createInvoice', 'expires_in'],
    external_id: ['createInvoice', 'external_id'],
    description: ['createInvoice', 'description'],
    return_url: ['createInvoice', 'return_url'],
    idempotency_key: IDEMPOTENCY_KEY,
  },
  create_deposit: {
    external_id: ['createDeposit', 'external_id'],
    description: ['createDeposit', 'description'],
    return_url: ['createDeposit', 'return_url'],
    idempotency_key: IDEMPOTENCY_KEY,
  },
  get_issuance: { id: ['getIssuance', 'id'] },
  list_issuances: Object.fromEntries(
    ['kind', 'status', 'cancelled', 'external_id', 'created_after', 'created_before', 'limit', 'cursor'].map((name) => [name, ['listIssuances', name] as const]),
  ),
  cancel_invoice: { id: ['cancelInvoice', 'id'], idempotency_key: IDEMPOTENCY_KEY },
  set_deposit_enabled: { id: ['setDepositEnabled', 'id'], enabled: ['setDepositEnabled', 'enabled'], idempotency_key: IDEMPOTENCY_KEY },
  list_payments: { limit: ['listPayments', 'limit'], cursor: ['listPayments', 'cursor'] },
  list_events: Object.fromEntries(['type', 'delivery_status', 'limit', 'cursor'].map((name) => [name, ['listEvents', name] as const])),
  list_deliveries: Object.fromEntries(['event_id', 'endpoint_id', 'status', 'limit', 'cursor'].map((name) => [name, ['listWebhookDeliveries', name] as const])),
  replay_delivery: { id: ['replayWebhookDelivery', 'id'], idempotency_key: IDEMPOTENCY_KEY },
  register_webhook: { url: ['createWebhookEndpoint', 'url'], filters: ['createWebhookEndpoint', 'filters'], idempotency_key: IDEMPOTENCY_KEY },
  simulate_payment: { issuance_id: ['simulateSandboxEvent', 'issuance_id'], amount: ['simulateSandboxEvent', 'amount'], idempotency_key: IDEMPOTENCY_KEY },
  simulate_close: { issuance_id: ['simulateSandboxEvent', 'issuance_id'], idempotency_key: IDEMPOTENCY_KEY },
  simulate_revert: {
    issuance_id: ['simulateSandboxEvent', 'issuance_id'],
    reference_event_id: ['simulateSandboxEvent', 'reference_event_id'],
    idempotency_key: IDEMPOTENCY_KEY,
  },
};

/** Fields the tools add for a model, with no route counterpart: names a model knows instead of chain ids and addresses. */
const TOOL_OWN: Readonly<Record<string, readonly string[]>> = {
  create_invoice: ['token', 'network'],
  create_multi_option_invoice: ['options'],
  create_deposit: ['network', 'token', 'options'],
  list_issuances: ['network', 'token'],
};

let app: TestApp;
let client: Client;
let document: { paths: Record<string, Record<string, Json>>; components: { parameters: Record<string, Json> } };

beforeAll(async () => {
  app = await createTestApp();
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/v1`;
  const owner = await createOwnerWithShop(app.database.db, { sandbox: true });
  client = mcpClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${owner.key.token}` } } }));
  document = (await app.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
});
afterAll(async () => {
  await client.close();
  await app.close();
});

/** The served document's schema of one input of an operation: a body field, or a query, path or header parameter. */
function routeInput(operationId: string, name: string): Json | undefined {
  if (operationId === 'header') return document.components.parameters.IdempotencyKey?.schema as Json | undefined;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Json[]) {
      if (operation.operationId !== operationId) continue;
      const body = (operation.requestBody as { content: Record<string, { schema: { properties?: Record<string, Json> } }> } | undefined)?.content['application/json']?.schema;
      const parameter = (operation.parameters as { name?: string; schema?: Json }[] | undefined)?.find((candidate) => candidate.name === name);
      return body?.properties?.[name] ?? parameter?.schema;
    }
  }
  return undefined;
}

const withoutDescription = ({ description: _description, ...rest }: Json) => rest;

describe('MCP tool schemas are the route schemas (issue 26 item 4)', () => {
  it('each tool field taken from a route has exactly the route\'s schema in the served document (only the description is the tool\'s)', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(FROM_ROUTES).sort());
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
      const fromRoutes = FROM_ROUTES[tool.name] ?? {};
      expect(Object.keys(properties).sort(), tool.name).toEqual([...Object.keys(fromRoutes), ...(TOOL_OWN[tool.name] ?? [])].sort());
      for (const [field, [operationId, input]] of Object.entries(fromRoutes)) {
        const route = routeInput(operationId, input);
        expect(route, `${tool.name}.${field}: ${operationId} ${input}`).toBeDefined();
        expect(withoutDescription(properties[field] ?? {}), `${tool.name}.${field}`).toEqual(withoutDescription(route ?? {}));
        expect(properties[field]?.description, `${tool.name}.${field} says what it is for a model`).toEqual(expect.any(String));
      }
    }
  });

  it('every tool says what it does, and every field what to put in it', async () => {
    for (const tool of (await client.listTools()).tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(60);
      for (const [field, schema] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, Json>)) {
        expect(typeof schema.description, `${tool.name}.${field}`).toBe('string');
      }
    }
  });
});
