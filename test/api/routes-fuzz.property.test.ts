import fc from 'fast-check';
import type { LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';

// Issue "Platform", Bad input: a property-based test walks every registered
// route with random and malformed bodies, headers and path parameters and
// asserts that none answers 5xx; and SPEC "Error envelope": every error answer
// of the API is {error:{code,message}} with message repeating the code (and
// details that name a field say why: issue 20 item 4). Later
// issues' routes join automatically: the routes are read from the live router.
// About 40 runs per route, half of them "chaos" (every part random) and half
// "focused" (valid credentials, ids and headers, a body shaped by the schema or
// a known-good body with one field changed) so that requests reach use cases.
// A failure prints fast-check's seed; re-run it with `fc.assert(…, { seed, path })`.

interface CapturedRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: RouteSchema;
}

/** The JSON Schema subset TypeBox produces for our route schemas. */
interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
}

interface RouteSchema {
  readonly body?: JsonSchema;
  readonly querystring?: JsonSchema;
}

// Fastify keeps no public list of routes: the HTTP core is wrapped (for this
// file only) to record each route as it is registered, with its schema.
const registered = vi.hoisted(() => [] as CapturedRoute[]);
vi.mock('../../src/platform/http/server.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/platform/http/server.js')>();
  return {
    ...actual,
    createHttpCore: (options: Parameters<typeof actual.createHttpCore>[0]) => {
      const server = actual.createHttpCore(options);
      server.addHook('onRoute', (route: RouteOptions) => {
        for (const method of [route.method].flat()) {
          registered.push({ method: method.toUpperCase(), url: route.url ?? '', schema: (route.schema ?? {}) as RouteSchema });
        }
      });
      return server;
    },
  };
});

const RUNS_PER_ROUTE = 40;
const BASE = 8453;
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

// Built at collection time: the routes must be known to declare one test each.
const app: TestApp = await createTestApp();
const gets = new Set(registered.filter((route) => route.method === 'GET').map((route) => route.url));
// HEAD twins of GET routes run the same handler; fuzzing them again adds nothing.
const routes = registered.filter((route) => !(route.method === 'HEAD' && gets.has(route.url)));

afterAll(async () => {
  await app.close();
});

/** Real principals and real ids, so that some requests get past auth and access checks. */
interface World {
  readonly sessionToken: string;
  readonly keyToken: string;
  readonly readKeyToken: string;
  readonly shopId: string;
  /** Every id met while seeding (own objects and another merchant's shop). */
  readonly ids: readonly string[];
  /** Path parameter values by name, from the catalogue (token icons). */
  readonly byName: Readonly<Record<string, readonly string[]>>;
  /** Bodies that succeeded while seeding, by "METHOD /route/:pattern", to mutate one field at a time. */
  readonly goodBodies: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

/**
 * A fresh owner per route, so that one route revoking its session or key
 * (logout, key delete) never blinds the routes after it: a shop with an
 * allocated invoice, a deposit, a webhook endpoint with a delivery, events.
 */
async function seedWorld(): Promise<World> {
  const { db } = app.context;
  const owner = await createOwnerWithShop(db);
  const stranger = await createOwnerWithShop(db);
  const readKey = await createApiKey(db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
  const ids = new Set<string>([owner.shop.id, owner.merchant.id, owner.key.id, readKey.id, stranger.shop.id, stranger.merchant.id]);
  const goodBodies = new Map<string, Record<string, unknown>>();

  const call = async (method: 'GET' | 'POST', pattern: string, payload?: Record<string, unknown>) => {
    const response = await app.request({
      method,
      url: pattern.replace(':shop_id', owner.shop.id),
      headers: { authorization: `Bearer ${owner.session.token}`, ...(method === 'POST' ? { 'idempotency-key': newIdempotencyKey() } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
    // Seeding goes through the same routes: a server error here is a finding too.
    expect(response.statusCode, `${method} ${pattern}: ${response.body}`).toBeLessThan(500);
    if (response.statusCode < 300) {
      collectIds(response.json(), ids);
      if (payload !== undefined) goodBodies.set(`${method} ${pattern}`, payload);
    }
    return response;
  };

  const shop = '/api/v1/shops/:shop_id';
  const invoice = await call('POST', `${shop}/invoices`, { chain_id: BASE, token: BASE_USDC, amount: '1000000' });
  await call('POST', `${shop}/deposits`, { chain_id: BASE, token: BASE_USDC });
  await app.jobs.drain();
  // Registered after the drain: the worker never tries to reach this host.
  await call('POST', `${shop}/webhooks`, { url: 'https://example.com/ivory-fuzz', filters: ['invoice', 'transfer', 'payout'] });
  if (invoice.statusCode === 202) {
    await call('POST', `${shop}/sandbox/simulate`, { issuance_id: invoice.json().id, kind: 'transfer.confirmed', amount: '1000000' });
  }
  await call('GET', `${shop}/events`);
  await call('GET', `${shop}/deliveries`);
  goodBodies.set(`POST ${shop}/keys`, { name: 'fuzz key', scopes: ['read'] });
  goodBodies.set('POST /api/v1/merchants/:merchant_id/shops', { name: 'Fuzz shop', sandbox: false, recipient: '0x000000000000000000000000000000000000dEaD' });

  const icons = app.context.catalogue
    .publicNetworks()
    .flatMap((network) => network.tokens.map((token) => token.icon_url))
    .filter((url): url is string => url !== undefined)
    .map((url) => url.split('/').slice(-3));
  return {
    sessionToken: owner.session.token,
    keyToken: owner.key.token,
    readKeyToken: readKey.token,
    shopId: owner.shop.id,
    ids: [...ids],
    byName: {
      shop_id: [owner.shop.id],
      merchant_id: [owner.merchant.id],
      chain_id: icons.map((parts) => parts[0] ?? ''),
      token: icons.map((parts) => decodeURIComponent(parts[1] ?? '')),
      hash: icons.map((parts) => parts[2] ?? ''),
    },
    goodBodies,
  };
}

/** Every string under a key named `id`, `*_id` or `public_id` in a JSON answer. */
function collectIds(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectIds(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if ((key === 'id' || key.endsWith('_id')) && typeof item === 'string' && item.length > 0 && item.length <= 100) into.add(item);
      else collectIds(item, into);
    }
  }
}

// ---------------------------------------------------------------- arbitraries

/** Printable ASCII: what survives as an HTTP header value. */
const headerText = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength });

const SQLISH = ["' OR '1'='1", "1; DROP TABLE shops; --", "%' --", '\\', '"', '%00', '..', '.', 'null', 'undefined', 'NaN', '-1', '0', '1e309', '9'.repeat(40)];
const ODD_STRINGS = ['', ' ', '0', '-1', '1.5', '1e18', '0x', '0x0', '00000000-0000-0000-0000-000000000000', 'true', '[]', '{}', '\u0000', '\u202e', '😀', 'Ä'.repeat(300)];

function interestingString(world: World): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_STRINGS, ...SQLISH) },
    { weight: 2, arbitrary: fc.constantFrom(...world.ids) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        BASE_USDC,
        '1000000',
        '1.5',
        '0.000001',
        '1000000000000000000000000000000000000000000000000000000000000000000000000000000000',
        'https://example.com/hook',
        'http://127.0.0.1/hook',
        'https://user:pass@example.com/',
        'javascript:alert(1)',
        '2020-01-01T00:00:00Z',
        'PT1H',
        '3600',
        'transfer.confirmed',
        'invoice',
        'owner@example.com',
        '0x000000000000000000000000000000000000dEaD',
        'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((length) => 'x'.repeat(length)) },
  );
}

function anyJson(world: World): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: interestingString(world) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e300, BASE, 56, 900, true, false, null, [], {}) },
  );
}

/** Values shaped by the route's schema (so that validation sometimes passes), with wrong types mixed in. */
function fromSchema(schema: JsonSchema | undefined, world: World, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return anyJson(world);
  const typed = typedFromSchema(schema, world, depth);
  return fc.oneof({ weight: 6, arbitrary: typed }, { weight: 1, arbitrary: anyJson(world) });
}

function typedFromSchema(schema: JsonSchema, world: World, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined && union.length > 0) return fc.oneof(...union.map((member) => fromSchema(member, world, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return interestingString(world);
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1, BASE, 56, 728126428, 900, 2 ** 31, 2 ** 53 - 1));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -1, 0.5, 1e21));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(fromSchema(schema.items, world, depth + 1), { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(fromSchema(schema.items, world, depth + 1), { minLength: 40, maxLength: 120 }) },
      );
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, fromSchema(property, world, depth + 1)]));
      const known = fc.record(properties, { requiredKeys: [] });
      const unknownFields = fc.dictionary(fc.constantFrom('id', 'merchant_id', 'shop_id', 'admin', '__proto__', 'constructor', 'extra'), anyJson(world), {
        maxKeys: 2,
      });
      return fc
        .tuple(known, fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: unknownFields }))
        .map(([fields, extra]) => ({ ...extra, ...fields }));
    }
    default:
      return anyJson(world);
  }
}

type Body = string | Buffer | undefined;

/** Arrays or objects nested up to 120,000 deep: valid JSON that recursive code chokes on. */
const deepJson: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 50, max: 120_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

function bodyArbitrary(route: CapturedRoute, world: World): fc.Arbitrary<Body> {
  const malformed = fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'null',
    'true',
    '""',
    '0',
    '[]',
    'not json at all',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    "{'single':'quotes'}",
    '\uFEFF{}',
    'NaN',
    '1e99999',
  );
  const invalidUtf8 = fc
    .uint8Array({ maxLength: 32 })
    .map((bytes) => Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(bytes), Buffer.from('"}')]));
  const huge = fc.constantFrom(900_000, 1024 * 1024 + 1).map((length) => JSON.stringify({ name: 'a'.repeat(length), url: 'b'.repeat(16) }));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: fromSchema(route.schema.body, world).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 2, arbitrary: malformed },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: invalidUtf8 },
    { weight: 1, arbitrary: huge },
  );
}

function authorizationArbitrary(world: World): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(`Bearer ${world.sessionToken}`) },
    { weight: 4, arbitrary: fc.constant(`Bearer ${world.keyToken}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${world.readKeyToken}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        headerText(60),
        headerText(60).map((text) => `Bearer ${text}`),
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Basic dXNlcjpwYXNz',
          `Bearer ivk_${'0'.repeat(43)}`,
          `bearer   ${world.keyToken}   `,
          `Bearer ${world.sessionToken}x`,
          `Bearer ${world.keyToken.toUpperCase()}`,
          `Bearer ${world.keyToken} ${world.sessionToken}`,
          `Bearer ${'A'.repeat(8000)}`,
        ),
      ),
    },
  );
}

function idempotencyKeyArbitrary(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.uuid().map((id) => `fuzz-${id}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'fuzz-reused-key', 'x'.repeat(128), 'x'.repeat(129)) },
    { weight: 1, arbitrary: headerText(200).map((text) => text.padEnd(200, 'k')) },
    { weight: 1, arbitrary: headerText(128) },
  );
}

const contentTypeArbitrary: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/vnd.api+json',
      'text/plain',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/octet-stream',
      '',
      '*/*',
      'garbage',
      'application/json;;;',
    ),
  },
);

/** A path parameter: a value to percent-encode, or raw text put into the URL as it is (bad escapes). */
type PathValue = string | { readonly raw: string };

const RAW_SEGMENTS = ['%ZZ', '%E0%A4%A', '%ff', '%', '%00', '%2F', '..%2F..', '%252F', '%C0%AF', '%u0041'];

function paramArbitrary(name: string, world: World): fc.Arbitrary<PathValue> {
  const named = world.byName[name] ?? [];
  return fc.oneof<fc.WeightedArbitrary<PathValue>[]>(
    { weight: named.length > 0 ? 6 : 0, arbitrary: named.length > 0 ? fc.constantFrom(...named) : fc.constant('') },
    { weight: 4, arbitrary: fc.constantFrom(...world.ids) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom(...SQLISH) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 90, max: 3000 }).map((length) => 'a'.repeat(length)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((raw) => ({ raw })) },
  );
}

function queryArbitrary(route: CapturedRoute, world: World): fc.Arbitrary<string> {
  const names = Object.keys(route.schema.querystring?.properties ?? {});
  const pair = fc.tuple(
    fc.oneof({ weight: names.length > 0 ? 4 : 0, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant('') }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }),
    fc.oneof(interestingString(world), fc.integer().map(String), fc.constantFrom('1', '100', '1000', '-5', '0', '1.5', '')),
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('') },
    { weight: names.length > 0 ? 3 : 1, arbitrary: fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`)) },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?limit=1&limit=2', '?cursor=%ZZ', `?limit=${'9'.repeat(50)}`, '?a[b]=1') },
  );
}

interface FuzzRequest {
  readonly path: Readonly<Record<string, PathValue>>;
  readonly query: string;
  readonly authorization: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly contentType: string | undefined;
  readonly body: Body;
}

function requestArbitrary(route: CapturedRoute, world: World): fc.Arbitrary<FuzzRequest> {
  const names = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '');
  const pathOf = (param: (name: string) => fc.Arbitrary<PathValue>) =>
    fc.record(Object.fromEntries(names.map((name) => [name, param(name)])) as Record<string, fc.Arbitrary<PathValue>>);
  // Everything random at once: most requests stop at the first check they meet.
  const chaos = fc.record({
    path: pathOf((name) => paramArbitrary(name, world)),
    query: queryArbitrary(route, world),
    authorization: authorizationArbitrary(world),
    idempotencyKey: idempotencyKeyArbitrary(),
    contentType: contentTypeArbitrary,
    body: bodyArbitrary(route, world),
  });
  // Valid credentials, ids, headers and content type, and a body shaped by the
  // schema: these get past auth, access and validation into the use cases.
  const focused = fc
    .record({
      path: pathOf((name) => {
        const named = world.byName[name] ?? [];
        return named.length > 0 ? fc.constantFrom(...named) : fc.constantFrom(...world.ids);
      }),
      query: queryArbitrary(route, world),
      authorization: fc.constantFrom(`Bearer ${world.sessionToken}`, `Bearer ${world.keyToken}`),
      idempotencyKey: fc.uuid().map((id) => `fuzz-${id}`),
      body: fc.oneof(
        { weight: 8, arbitrary: route.schema.body === undefined ? fc.constant(undefined) : focusedBody(route, world) },
        { weight: 1, arbitrary: deepJson },
      ),
    })
    .map((request) => ({ ...request, contentType: request.body === undefined ? undefined : 'application/json' }));
  return fc
    .oneof(chaos, focused)
    .map((request) => Object.assign(request, { [fc.toStringMethod]: () => describeRequest(route, request) }));
}

/** A body from the schema, or a body known to succeed with one field replaced or removed. */
function focusedBody(route: CapturedRoute, world: World): fc.Arbitrary<Body> {
  const schema = route.schema.body ?? {};
  const typed = typedFromSchema(schema, world, 0);
  const good = world.goodBodies.get(`${route.method} ${route.url}`);
  if (good === undefined) return typed.map((value) => JSON.stringify(value) ?? 'null');
  const fields = [...new Set([...Object.keys(good), ...Object.keys(schema.properties ?? {})])];
  const mutated = fc.constantFrom(...fields).chain((field) =>
    fc.option(fromSchema(schema.properties?.[field], world, 1), { nil: undefined }).map((value) => {
      const body: Record<string, unknown> = { ...good };
      if (value === undefined) delete body[field];
      else body[field] = value;
      return body;
    }),
  );
  return fc.oneof({ weight: 1, arbitrary: typed }, { weight: 2, arbitrary: mutated }, { weight: 1, arbitrary: fc.constant(good) }).map((value) => JSON.stringify(value) ?? 'null');
}

// --------------------------------------------------------------- the check

function urlOf(route: CapturedRoute, request: FuzzRequest): string {
  const segment = (value: PathValue | undefined) => (value === undefined ? '' : typeof value === 'string' ? encodeURIComponent(value) : value.raw);
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => segment(request.path[name])) + request.query;
}

function clip(text: string, length = 300): string {
  return text.length <= length ? text : `${text.slice(0, length)}… (${text.length} chars)`;
}

function describeRequest(route: CapturedRoute, request: FuzzRequest): string {
  const body = request.body === undefined ? 'none' : Buffer.isBuffer(request.body) ? `bytes ${request.body.toString('hex').slice(0, 200)}` : JSON.stringify(clip(request.body));
  return [
    `${route.method} ${clip(urlOf(route, request))}`,
    `authorization: ${request.authorization === undefined ? 'none' : JSON.stringify(clip(request.authorization, 80))}`,
    `idempotency-key: ${request.idempotencyKey === undefined ? 'none' : JSON.stringify(clip(request.idempotencyKey, 80))}`,
    `content-type: ${request.contentType === undefined ? 'none' : JSON.stringify(request.contentType)}`,
    `body: ${body}`,
  ].join('\n  ');
}

async function send(route: CapturedRoute, request: FuzzRequest): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  return app.request({
    method: route.method as 'GET',
    url: urlOf(route, request),
    headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
}

/** Why the answer breaks the contract, or undefined when it keeps it. */
function violation(route: CapturedRoute, response: LightMyRequestResponse): string | undefined {
  if (response.statusCode >= 500) return `answered ${response.statusCode}`;
  if (response.statusCode >= 200 && response.statusCode < 300) return undefined;
  // Hosted pages (outside /api) answer errors as HTML for people, not in the envelope.
  if (!route.url.startsWith('/api/')) return undefined;
  let body: unknown;
  try {
    body = response.json();
  } catch {
    return `answered ${response.statusCode} with a body that is not JSON`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || error.code === '') return `answered ${response.statusCode} without the error envelope`;
  if (error.message !== error.code) return `answered ${response.statusCode} with message "${String(error.message)}" not repeating code "${error.code}"`;
  // Issue 20 item 4: details that name an input name it with a path and say why.
  const details = error.details as { field?: unknown; reason?: unknown } | undefined;
  if (details !== undefined && 'field' in details && (typeof details.field !== 'string' || typeof details.reason !== 'string' || details.reason.trim() === '')) {
    return `answered ${response.statusCode} with details.field but no reason`;
  }
  return undefined;
}

describe('every registered route answers malformed input without a server error, in the error envelope', () => {
  it('discovers the routes from the live router', () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.map((route) => `${route.method} ${route.url}`)).toContain('POST /api/v1/shops/:shop_id/invoices');
  });

  for (const route of routes) {
    it(`${route.method} ${route.url}`, async () => {
      const world = await seedWorld();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route, world), async (request) => {
          const response = await send(route, request);
          const problem = violation(route, response);
          if (problem !== undefined) throw new Error(`${problem}: ${clip(response.body, 500)}\n  ${describeRequest(route, request)}`);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    });
  }
});
