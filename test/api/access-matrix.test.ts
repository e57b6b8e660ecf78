import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessNeed } from '../../src/merchants/index.js';
import { newId } from '../../src/platform/crypto.js';
import { API_PREFIX, registeredRoutes } from '../../src/platform/http/server.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { member } from './merchants-helpers.js';

// Issue 11, item 1; SPEC "Authentication" 3, 4 and 8; decision 0016. One row per
// shop route: what a session role needs (viewer reads; developer does integration
// work; owner administers) and which API key scope the route takes (null:
// session-only). Every row is tried by every kind of caller over HTTP. The rows
// must match the app's route table exactly, so a new shop route fails here
// until its access is decided.

type KeyScope = 'read' | 'write' | 'any' | null;

interface Row {
  readonly need: AccessNeed;
  readonly key: KeyScope;
  /** A body that passes the route's schema, so the access decision is what answers. */
  readonly body?: Record<string, unknown>;
  /** Run once before the row's callers (state the allowed callers' own answer needs). */
  readonly before?: () => Promise<void>;
}

const S = `${API_PREFIX}/shops/:shop_id`;

const MATRIX: Readonly<Record<string, Row>> = {
  [`GET ${S}`]: { need: 'read', key: 'read' },
  [`PATCH ${S}`]: { need: 'owner', key: null, body: {} },
  [`GET ${S}/terms`]: { need: 'read', key: 'any' },
  [`GET ${S}/tron-recipient`]: { need: 'read', key: 'any' },
  [`PUT ${S}/tron-recipient`]: { need: 'owner', key: null, body: { address: 'x' } },
  [`GET ${S}/solana-recipient`]: { need: 'read', key: 'any' },
  [`PUT ${S}/solana-recipient`]: { need: 'owner', key: null, body: { address: 'x' } },
  [`PATCH ${S}/branding`]: { need: 'owner', key: null, body: { name: 'x' } },
  [`POST ${S}/sandbox/simulate`]: { need: 'write', key: 'write', body: { issuance_id: '00000000-0000-4000-8000-000000000000', kind: 'transfer.confirmed', amount: '1' } },
  [`POST ${S}/sandbox/reset`]: { need: 'owner', key: null },
  [`GET ${S}/keys`]: { need: 'write', key: null },
  [`POST ${S}/keys`]: { need: 'owner', key: null, body: { name: 'matrix', scopes: ['read'] } },
  [`PATCH ${S}/keys/:key_id`]: { need: 'owner', key: null, body: { name: 'renamed' } },
  [`DELETE ${S}/keys/:key_id`]: { need: 'owner', key: null },
  [`POST ${S}/webhooks`]: { need: 'write', key: 'write', body: { url: 'http://127.0.0.1/hook', filters: ['invoice'] } },
  [`GET ${S}/webhooks`]: { need: 'read', key: 'any' },
  [`PATCH ${S}/webhooks/:id`]: { need: 'write', key: 'write', body: {} },
  [`DELETE ${S}/webhooks/:id`]: { need: 'write', key: 'write' },
  [`POST ${S}/webhooks/:id/rotate-secret`]: { need: 'write', key: 'write' },
  [`POST ${S}/webhooks/:id/recover`]: { need: 'write', key: 'write', body: { since: '2026-01-01T00:00:00Z' } },
  [`GET ${S}/deliveries`]: { need: 'read', key: 'any' },
  [`POST ${S}/deliveries/:id/replay`]: { need: 'write', key: 'write' },
  [`GET ${S}/events`]: { need: 'read', key: 'any' },
  [`POST ${S}/invoices`]: { need: 'write', key: 'write', body: { chain_id: 999_999_999, token: 'NONE', amount: '1' } },
  [`POST ${S}/invoices/:id/cancel`]: { need: 'write', key: 'write' },
  [`POST ${S}/deposits`]: { need: 'write', key: 'write', body: { chain_id: 999_999_999, token: 'NONE' } },
  [`PATCH ${S}/deposits/:id`]: { need: 'write', key: 'write', body: { enabled: false } },
  [`GET ${S}/issuances`]: { need: 'read', key: 'read' },
  [`GET ${S}/issuances/:id`]: { need: 'read', key: 'read' },
  [`GET ${S}/payments`]: { need: 'read', key: 'read' },
  [`GET ${S}/unmatched-transfers`]: { need: 'read', key: 'read' },
  [`GET ${S}/export.csv`]: { need: 'read', key: 'read' },
  // Decision 0038. An open invoice first: the owner's call is then refused by the use case
  // (shop_has_open_issuances) and the shop every row uses stays active.
  [`POST ${S}/archive`]: { need: 'owner', key: null, before: () => openInvoiceInShop() },
};

type Caller =
  | 'owner'
  | 'developer'
  | 'viewer'
  | 'grant on another shop'
  | 'session of another merchant'
  | 'key read'
  | 'key write'
  | 'key of another shop'
  | 'key of another merchant'
  | 'no credential';

const CALLERS: readonly Caller[] = [
  'owner',
  'developer',
  'viewer',
  'grant on another shop',
  'session of another merchant',
  'key read',
  'key write',
  'key of another shop',
  'key of another merchant',
  'no credential',
];

type Outcome = 'allowed' | { readonly status: number; readonly code: string };

const FORBIDDEN = { status: 403, code: 'forbidden' } as const;
const ABSENT = { status: 404, code: 'shop_not_found' } as const;
const RANK: Readonly<Record<AccessNeed, number>> = { read: 1, write: 2, owner: 3 };

function keyTakes(route: KeyScope, scope: 'read' | 'write'): boolean {
  return route === 'any' || route === scope;
}

/** The decision the matrix states: what each caller must get on a route. */
function expected(row: Row, caller: Caller): Outcome {
  switch (caller) {
    case 'owner':
      return 'allowed';
    case 'developer':
      return RANK[row.need] <= RANK.write ? 'allowed' : FORBIDDEN;
    case 'viewer':
      return row.need === 'read' ? 'allowed' : FORBIDDEN;
    // A grant on one shop says nothing of the others; another merchant's shops do not exist for it.
    case 'grant on another shop':
    case 'session of another merchant':
      return ABSENT;
    case 'key read':
    case 'key write':
      return keyTakes(row.key, caller === 'key read' ? 'read' : 'write') && row.need !== 'owner' ? 'allowed' : FORBIDDEN;
    // Keys work within their own shop only; a route that takes no key refuses every key first.
    case 'key of another shop':
      return FORBIDDEN;
    case 'key of another merchant':
      return row.key === null ? FORBIDDEN : ABSENT;
    case 'no credential':
      return { status: 401, code: 'unauthorized' };
  }
}

/** Codes that mean "this caller may not": an allowed caller never gets one. */
const REFUSALS = new Set(['unauthorized', 'forbidden', 'shop_not_found', 'onboarding_required', 'mfa_required', 'account_disabled']);

let app: TestApp;
let tokens: Record<Exclude<Caller, 'no credential'>, string>;
let shopId: string;

beforeAll(async () => {
  app = await createTestApp();
  const db = app.context.db;
  const owner = await createOwnerWithShop(db);
  shopId = owner.shop.id;
  const otherShop = await createShop(db, owner.merchant.id, { sandbox: false });
  const stranger = await createOwnerWithShop(db);
  tokens = {
    owner: owner.session.token,
    developer: (await member(db, owner.merchant.id, 'developer')).token,
    viewer: (await member(db, owner.merchant.id, 'viewer')).token,
    'grant on another shop': (await member(db, owner.merchant.id, 'owner', otherShop.id)).token,
    'session of another merchant': stranger.session.token,
    'key read': (await createApiKey(db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] })).token,
    'key write': (await createApiKey(db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] })).token,
    'key of another shop': (await createApiKey(db, { id: otherShop.id, merchantId: owner.merchant.id })).token,
    'key of another merchant': stranger.key.token,
  };
});
afterAll(async () => {
  await app.close();
});

async function openInvoiceInShop(): Promise<void> {
  const response = await app.request({
    method: 'POST',
    url: `${API_PREFIX}/shops/${shopId}/invoices`,
    headers: { ...authed(tokens['key write']), 'idempotency-key': newIdempotencyKey() },
    payload: { chain_id: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '1000000' },
  });
  expect(response.statusCode, response.body).toBe(202);
}

function shopRoutes(): string[] {
  return registeredRoutes(app.server)
    .filter((route) => route.url === S || route.url.startsWith(`${S}/`))
    .map((route) => `${route.method} ${route.url}`);
}

async function call(route: string, row: Row, caller: Caller): Promise<LightMyRequestResponse> {
  const [method, pattern] = route.split(' ') as [string, string];
  // Other path parameters name nothing: an allowed caller reaches the use case and gets its own answer.
  const url = pattern.replace(':shop_id', shopId).replace(/:[a-z_]+/g, () => newId());
  const headers: Record<string, string> = caller === 'no credential' ? {} : authed(tokens[caller]);
  if (method !== 'GET') headers['idempotency-key'] = newIdempotencyKey();
  if (row.body !== undefined) headers['content-type'] = 'application/json';
  return app.request({
    method: method as 'GET',
    url,
    headers,
    ...(row.body === undefined ? {} : { payload: JSON.stringify(row.body) }),
  });
}

describe('the access matrix of every shop route (SPEC "Authentication" 3, 4, 8)', () => {
  it('has exactly one row per shop route the app registers: a new shop route needs its access decided here', () => {
    const registered = shopRoutes();
    expect(registered.length).toBeGreaterThan(20);
    expect([...registered].sort()).toEqual(Object.keys(MATRIX).sort());
  });

  for (const [route, row] of Object.entries(MATRIX)) {
    it(`${route}: needs ${row.need}; keys: ${row.key ?? 'none (session only)'}`, async () => {
      const seen: Record<string, string> = {};
      const wanted: Record<string, string> = {};
      await row.before?.();
      for (const caller of CALLERS) {
        const response = await call(route, row, caller);
        const code = response.statusCode >= 400 ? (response.json<{ error?: { code?: string } }>().error?.code ?? '?') : 'ok';
        const outcome = expected(row, caller);
        if (outcome === 'allowed') {
          // Allowed: whatever the use case answers (a 2xx, or its own error for ids that name nothing), never a refusal.
          wanted[caller] = 'allowed';
          seen[caller] = response.statusCode < 500 && !REFUSALS.has(code) ? 'allowed' : `${response.statusCode} ${code}`;
        } else {
          wanted[caller] = `${outcome.status} ${outcome.code}`;
          seen[caller] = `${response.statusCode} ${code}`;
        }
      }
      expect(seen).toEqual(wanted);
    });
  }
});
