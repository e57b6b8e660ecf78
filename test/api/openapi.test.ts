import fs from 'node:fs';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPERATIONS, legacyAliasOf, operationKey } from '../../src/openapi/index.js';
import { ERROR_CODES } from '../../src/platform/errors.js';
import type { AuthRequirement } from '../../src/platform/http/principal.js';
import { DOCUMENT_ENV, DOCUMENT_FILE, SCHEMA_FILE, clientTypes, documentText } from '../../scripts/openapi-files.mjs';
import { createTestApp, type TestApp } from '../support/app.js';

// Issue 13 item 5: a complete OpenAPI 3.1 document generated from the route schemas and
// completed centrally (src/openapi/), served at {base_url}/openapi.json and committed with
// the typed client's types generated from it.

interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly hidden: boolean;
  readonly auth?: AuthRequirement;
  readonly idempotent: boolean;
}

// Fastify has no public list of its routes, so the HTTP core is wrapped to record
// every route through an `onRoute` hook as it is registered. The app itself is
// unchanged; only this test file sees the wrapper.
const registered = vi.hoisted(() => [] as RegisteredRoute[]);
vi.mock('../../src/platform/http/server.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/platform/http/server.js')>();
  return {
    ...actual,
    createHttpCore: (options: Parameters<typeof actual.createHttpCore>[0]) => {
      const server = actual.createHttpCore(options);
      server.addHook('onRoute', (route: RouteOptions) => {
        const hidden = (route.schema as { hide?: unknown } | undefined)?.hide === true;
        const config = (route.config ?? {}) as { auth?: AuthRequirement; idempotent?: boolean };
        for (const method of [route.method].flat()) {
          registered.push({ method: method.toUpperCase(), url: route.url ?? '', hidden, auth: config.auth, idempotent: config.idempotent === true });
        }
      });
      return server;
    },
  };
});

const API_PREFIX = '/api/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  operationId?: string;
  deprecated?: boolean;
  description?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: ({ in: string; name: string } | { $ref: string })[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }>;
}
type OpenApiPaths = Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
interface Document {
  openapi: string;
  info: { license?: { name: string; identifier?: string; url?: string } };
  servers: { url: string; variables: Record<string, { default: string }> }[];
  tags: { name: string }[];
  paths: OpenApiPaths;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content: Record<string, { schema: unknown }> }> };
}

/** Routes worth documenting: HEAD twins of GET routes are Fastify's; hidden ones are not API (the payment page). */
function documentable(routes: readonly RegisteredRoute[]): RegisteredRoute[] {
  const gets = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.url));
  return routes.filter((route) => !(route.method === 'HEAD' && gets.has(route.url)) && (!route.hidden || OPERATIONS[operationKey(route.method, route.url)] !== undefined));
}

/** Path in the document: relative to {base_url} for API routes, from the root otherwise. */
function documentPath(route: RegisteredRoute): string {
  return operationKey(route.method, route.url).split(' ')[1] ?? '';
}

function operationOf(document: Document, route: RegisteredRoute): Operation | undefined {
  return document.paths[documentPath(route)]?.[route.method.toLowerCase() as (typeof METHODS)[number]];
}

/** `METHOD url` of every documentable route without an entry in the central table. */
function withoutEntry(routes: readonly RegisteredRoute[]): string[] {
  return documentable(routes)
    .filter((route) => OPERATIONS[operationKey(route.method, route.url)] === undefined)
    .map((route) => `${route.method} ${route.url}`);
}

function operations(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] === undefined ? [] : [[`${method.toUpperCase()} ${path}`, item[method]] as [string, Operation]])),
  );
}

/** What SPEC "Endpoints" Auth column means in OpenAPI terms, written out independently of src/openapi. */
function expectedSecurity(route: RegisteredRoute): Record<string, string[]>[] {
  if (route.url.startsWith('/admin/')) return [{ adminToken: [] }];
  const auth = route.auth;
  if (auth === undefined || auth === 'none') return [];
  return [...(auth.session ? [{ session: [] }] : []), ...(auth.key === undefined ? [] : [{ apiKey: auth.key === 'any' ? [] : [auth.key] }])];
}

describe('OpenAPI document', () => {
  let app: TestApp;
  let served: string;
  let document: Document;

  beforeAll(async () => {
    // The committed document's settings, so that the served one can be compared with it.
    app = await createTestApp(DOCUMENT_ENV);
    const response = await app.request({ method: 'GET', url: `${API_PREFIX}/openapi.json` });
    expect(response.statusCode).toBe(200);
    served = response.body;
    document = response.json();
  });
  afterAll(async () => {
    await app.close();
  });

  it('is OpenAPI 3.1 with {base_url} as its server, {root_url} a variable defaulting to PUBLIC_URL (SPEC "Versioning")', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([
      { url: `{root_url}${API_PREFIX}`, variables: { root_url: { default: DOCUMENT_ENV.PUBLIC_URL, description: expect.any(String) } } },
    ]);
  });

  it('info.license is the repository\'s licence: package.json `license`, the LICENSE file (issue 20)', () => {
    const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { license: string };
    expect(manifest.license).toBe('Apache-2.0');
    expect(document.info.license).toEqual({ name: manifest.license, identifier: manifest.license });
    expect(fs.readFileSync('LICENSE', 'utf8')).toMatch(/^ +Apache License\n +Version 2\.0, January 2004\n/);
  });

  it('sandbox simulate: `kind` is an enum of SPEC "Sandbox" kinds in the request and the answer; payments say `sandbox` and `simulated` (issue 20)', () => {
    const kinds = ['transfer.confirmed', 'invoice.closed', 'transfer.reverted', 'gas.wait', 'sweep.failed'];
    const simulate = document.paths['/shops/{shop_id}/sandbox/simulate']?.post as unknown as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, { enum?: string[] }> } }> };
    };
    expect(simulate.requestBody.content['application/json']?.schema.properties.kind?.enum).toEqual(kinds);
    const schemas = document.components.schemas as Record<string, { properties: Record<string, { type?: unknown; enum?: string[]; description?: string }>; required?: string[] }>;
    expect(schemas.SimulationResult?.properties.kind?.enum).toEqual(kinds);
    const payment = schemas.Payment;
    expect(payment?.properties.sandbox?.type).toBe('boolean');
    expect(payment?.required).toContain('sandbox');
    expect(payment?.properties.status?.description).toContain('`simulated`');
  });

  it('the route list was captured from the live router', () => {
    // Guards the wrapper above: an empty capture would make the next tests pass vacuously.
    expect(registered.length).toBeGreaterThan(60);
    expect(registered).toContainEqual(expect.objectContaining({ method: 'GET', url: `${API_PREFIX}/networks` }));
    expect(registered).toContainEqual(expect.objectContaining({ method: 'POST', url: '/admin/v1/merchants/:id/block' }));
    for (const route of registered) {
      expect(app.server.hasRoute({ method: route.method as RouteOptions['method'] & string, url: route.url }), `${route.method} ${route.url}`).toBe(true);
    }
  });

  it('every route has an entry in the central operation table (src/openapi/operations.ts), so a new route is caught', () => {
    expect(withoutEntry(registered)).toEqual([]);
  });

  it('the entry check itself notices a route without an entry', () => {
    const added: RegisteredRoute = { method: 'POST', url: `${API_PREFIX}/shops/:shop_id/undocumented`, hidden: false, idempotent: false };
    expect(withoutEntry([...registered, added])).toEqual([`POST ${API_PREFIX}/shops/:shop_id/undocumented`]);
  });

  it('every table entry names a registered route, and the document holds exactly the documentable routes (and their legacy aliases)', () => {
    const live = new Set(documentable(registered).map((route) => operationKey(route.method, route.url)));
    expect(Object.keys(OPERATIONS).filter((key) => !live.has(key))).toEqual([]);
    const current = operations(document).filter(([, operation]) => operation.deprecated !== true);
    expect(current.map(([key]) => key).sort()).toEqual([...live].sort());
  });

  it('every /shops route is also documented at its legacy /projects alias, deprecated, otherwise the same operation (SPEC "Versioning"; issue 26 item 4)', () => {
    const current = operations(document).filter(([, operation]) => operation.deprecated !== true);
    const aliases = operations(document).filter(([, operation]) => operation.deprecated === true);
    const expected = current.flatMap(([key, operation]) => {
      const [method, path] = key.split(' ') as [string, string];
      const alias = legacyAliasOf(path);
      return alias === undefined ? [] : [[`${method} ${alias}`, operation] as const];
    });
    expect(aliases.map(([key]) => key).sort()).toEqual(expected.map(([key]) => key).sort());
    for (const [key, operation] of expected) {
      const alias = aliases.find(([aliasKey]) => aliasKey === key)?.[1];
      const { operationId, summary, description: _description, deprecated, ...rest } = alias ?? ({} as Operation);
      const { operationId: currentId, summary: currentSummary, description: _currentDescription, ...currentRest } = operation;
      expect(deprecated, key).toBe(true);
      expect(operationId, key).toBe(`legacy${String(currentId).charAt(0).toUpperCase()}${String(currentId).slice(1)}`);
      expect(summary, key).toBe(`${String(currentSummary)} (legacy alias)`);
      expect(rest, key).toEqual(currentRest);
    }
    // The two the issue found missing, and the merchant-level alias.
    expect(document.paths['/projects/{shop_id}/invoices']?.post?.deprecated).toBe(true);
    expect(document.paths['/projects/{shop_id}/issuances/{id}']?.get?.deprecated).toBe(true);
    expect(document.paths['/merchants/{merchant_id}/projects']?.post?.deprecated).toBe(true);
    expect(document.paths['/shops/{shop_id}/invoices']?.post?.deprecated).toBeUndefined();
  });

  it('every operation has a unique operationId, a summary and one declared tag', () => {
    const tags = new Set(document.tags.map((tag) => tag.name));
    const ids = operations(document).map(([, operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, operation] of operations(document)) {
      expect(operation.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, key).toBeTruthy();
      expect(operation.tags, key).toHaveLength(1);
      expect(tags.has(operation.tags?.[0] ?? ''), key).toBe(true);
    }
  });

  it('every operation states the security its route enforces: none, session, API key with its exact scope, or the operator token', () => {
    for (const route of documentable(registered)) {
      expect(operationOf(document, route)?.security, `${route.method} ${route.url}`).toEqual(expectedSecurity(route));
    }
    // Spot checks against SPEC "Endpoints", so that a wrong derivation cannot agree with itself.
    expect(document.paths['/networks']?.get?.security).toEqual([]);
    expect(document.paths['/shops/{shop_id}/invoices']?.post?.security).toEqual([{ session: [] }, { apiKey: ['write'] }]);
    expect(document.paths['/shops/{shop_id}/issuances/{id}']?.get?.security).toEqual([{ session: [] }, { apiKey: ['read'] }]);
    expect(document.paths['/shops/{shop_id}/keys']?.post?.security).toEqual([{ session: [] }]);
    expect(document.paths['/admin/v1/merchants/{id}/block']?.post?.security).toEqual([{ adminToken: [] }]);
  });

  it('routes that require an Idempotency-Key declare the header, and only they', () => {
    for (const route of documentable(registered)) {
      const declared = (operationOf(document, route)?.parameters ?? []).some((parameter) => '$ref' in parameter && parameter.$ref === '#/components/parameters/IdempotencyKey');
      expect(declared, `${route.method} ${route.url}`).toBe(route.idempotent);
    }
  });

  it('every operation documents its error answers with the SPEC error envelope as a named component', () => {
    const error = document.components.schemas.Error as { properties: { error: { properties: { code: { enum: string[] } }; required: string[] } } };
    expect(error.properties.error.required).toEqual(['code', 'message']);
    expect(error.properties.error.properties.code.enum).toEqual(ERROR_CODES);
    for (const [key, operation] of operations(document)) {
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((status) => /^4\d\d$/.test(status)), key).toBe(true);
      expect(statuses, key).toContain('500');
      for (const status of statuses.filter((code) => /^[45]\d\d$/.test(code))) {
        const reference = operation.responses[status]?.$ref ?? '';
        const shared = document.components.responses[reference.replace('#/components/responses/', '')];
        expect(shared?.content['application/json']?.schema, `${key} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    expect(document.paths['/shops/{shop_id}/invoices']?.post?.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(document.paths['/shops/{shop_id}/keys']?.get?.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  });

  it('the main records are named component schemas, referenced from the operations', () => {
    for (const name of ['Network', 'Checkout', 'CheckoutGroup', 'Issuance', 'IssuanceGroup', 'Merchant', 'Shop', 'ApiKey', 'WebhookEndpoint', 'WebhookDelivery', 'Error']) {
      expect(document.components.schemas[name], name).toBeDefined();
      expect(served.includes(`"#/components/schemas/${name}"`), name).toBe(true);
    }
    expect(document.paths['/shops/{shop_id}/invoices']?.post?.responses['202']?.content?.['application/json']?.schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Issuance' }, { $ref: '#/components/schemas/IssuanceGroup' }],
    });
  });

  it('path parameters use the OpenAPI {param} form and are declared', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path, path).not.toMatch(/:[A-Za-z]/);
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const method of METHODS) {
        const operation = item[method];
        if (operation === undefined) continue;
        const declared = (operation.parameters ?? []).flatMap((parameter) => ('in' in parameter && parameter.in === 'path' ? [parameter.name] : []));
        expect(declared.sort(), `${method.toUpperCase()} ${path}`).toEqual([...names].sort());
      }
    }
  });

  it('has no errors under Redocly\'s recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: served, absoluteRef: path.resolve('openapi/openapi.json'), config });
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message} ${problem.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
    // Known warnings: POST /merchants answers only 403 (SPEC), GET /auth/google only redirects.
    const warnings = problems.filter((problem) => problem.severity === 'warn').map((problem) => problem.ruleId);
    expect(warnings).toEqual(['operation-2xx-response', 'operation-2xx-response']);
  });

  it('the committed openapi/openapi.json is the served document (run `npm run openapi` after changing a route)', () => {
    expect(fs.readFileSync(DOCUMENT_FILE, 'utf8')).toBe(documentText(document));
  });

  it('the committed client types are generated from the current document, so the typed client cannot drift', async () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(await clientTypes(document));
  });
});
