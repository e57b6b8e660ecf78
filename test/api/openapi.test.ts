import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

// Issue "Platform" item 11: a 3.1 document generated from the route schemas,
// served at {base_url}/openapi.json; this test fails when a registered route is missing.

interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly hidden: boolean;
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
        for (const method of [route.method].flat()) registered.push({ method: method.toUpperCase(), url: route.url ?? '', hidden });
      });
      return server;
    },
  };
});

const API_PREFIX = '/api/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type OpenApiPaths = Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;

/** Fastify's `/shops/:shop_id` under the API prefix, as OpenAPI writes it relative to the server URL. */
function openApiPath(url: string): string {
  const relative = url.startsWith(`${API_PREFIX}/`) ? url.slice(API_PREFIX.length) : url;
  return relative.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Routes worth documenting: HEAD twins of GET routes are Fastify's, not ours. */
function documentable(routes: readonly RegisteredRoute[]): RegisteredRoute[] {
  const gets = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.url));
  return routes.filter((route) => !route.hidden && !(route.method === 'HEAD' && gets.has(route.url)));
}

/** "METHOD /path" for every registered route the document lacks. */
function missingFromDocument(routes: readonly RegisteredRoute[], paths: OpenApiPaths): string[] {
  return documentable(routes)
    .filter((route) => paths[openApiPath(route.url)]?.[route.method.toLowerCase() as (typeof METHODS)[number]] === undefined)
    .map((route) => `${route.method} ${route.url}`);
}

describe('OpenAPI document', () => {
  let app: TestApp;
  let document: { openapi: string; servers: { url: string }[]; paths: OpenApiPaths };

  beforeAll(async () => {
    app = await createTestApp();
    const response = await app.request({ method: 'GET', url: `${API_PREFIX}/openapi.json` });
    expect(response.statusCode).toBe(200);
    document = response.json();
  });
  afterAll(async () => {
    await app.close();
  });

  it('is OpenAPI 3.1 with {base_url} as its server (SPEC "Versioning")', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers.map((server) => server.url)).toEqual([`http://ivory.test${API_PREFIX}`]);
  });

  it('the route list was captured from the live router', () => {
    // Guards the wrapper above: an empty capture would make the next test pass vacuously.
    expect(registered.length).toBeGreaterThan(20);
    expect(registered).toContainEqual({ method: 'GET', url: `${API_PREFIX}/networks`, hidden: false });
    expect(registered).toContainEqual({ method: 'GET', url: `${API_PREFIX}/openapi.json`, hidden: true });
    for (const route of registered) {
      expect(app.server.hasRoute({ method: route.method as RouteOptions['method'] & string, url: route.url }), `${route.method} ${route.url}`).toBe(true);
    }
  });

  it('documents every registered route with its method, except hidden ones', () => {
    expect(missingFromDocument(registered, document.paths)).toEqual([]);
  });

  it('documents no operation that is not registered', () => {
    const live = new Set(documentable(registered).map((route) => `${route.method} ${openApiPath(route.url)}`));
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      METHODS.filter((method) => operations[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((operation) => !live.has(operation))).toEqual([]);
  });

  it('path parameters use the OpenAPI {param} form and are declared', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      expect(path, path).not.toMatch(/:[A-Za-z]/);
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const method of METHODS) {
        const operation = operations[method] as { parameters?: { in: string; name: string }[] } | undefined;
        if (operation === undefined) continue;
        const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
        expect(declared.sort(), `${method.toUpperCase()} ${path}`).toEqual([...names].sort());
      }
    }
  });

  it('the check itself notices a route the document lacks', () => {
    const undocumented: RegisteredRoute = { method: 'POST', url: `${API_PREFIX}/shops/:shop_id/undocumented`, hidden: false };
    expect(missingFromDocument([...registered, undocumented], document.paths)).toEqual([`POST ${API_PREFIX}/shops/:shop_id/undocumented`]);
  });
});
