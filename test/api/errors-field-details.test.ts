import { createHash } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createShop } from '../support/factories.js';
import { BASE, BASE_USDC, TRON_USDT, usdc } from './issuances-helpers.js';
import { base58, findProgramAddress } from './merchants-helpers.js';

// Issue 20 item 4, within SPEC "Error envelope" ({error:{code,message,details?}}, message
// repeats the code): an input error names the input in details {field, reason}, where field is
// the JSON path of what was refused and reason a sentence a developer can act on. The code and
// status stay the ones SPEC "Errors" (and the earlier tests) give; SPEC's own details — a
// group's failing option, a blocked account's reason — keep their shapes.

let app: TestApp;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
let liveShopId: string;

beforeAll(async () => {
  app = await createTestApp();
  owner = await createOwnerWithShop(app.context.db);
  liveShopId = (await createShop(app.context.db, owner.merchant.id, { sandbox: false })).id;
});
afterAll(async () => {
  await app.close();
});

/** A request by the owner's session (or `key`), JSON, with a new Idempotency-Key on writes. */
function send(method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string, payload?: unknown, options: { key?: boolean } = {}) {
  const token = options.key === true ? owner.key.token : owner.session.token;
  const request: InjectOptions = {
    method,
    url: `/api/v1${path}`,
    headers: { ...authed(token, method === 'GET' || (method === 'PATCH' && path === '/profile') ? undefined : newIdempotencyKey()), 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  };
  return app.request(request);
}

const shop = () => `/shops/${owner.shop.id}`;
const invoice = (payload: unknown) => send('POST', `${shop()}/invoices`, payload, { key: true });
const deposit = (payload: unknown) => send('POST', `${shop()}/deposits`, payload, { key: true });
const base = { chain_id: BASE, token: BASE_USDC };

/** Tron and Solana addresses that are well formed but refused for a reason the answer must give. */
const TRON_BAD_CHECKSUM = `${TRON_USDT.slice(0, -1)}u`;
const SOLANA_PDA = (() => {
  const decode = (text: string) => Uint8Array.from(Buffer.from(createHash('sha256').update(text).digest()));
  return base58(findProgramAddress([decode('wallet'), decode('mint')], decode('program')).address);
})();

interface Row {
  readonly call: () => Promise<LightMyRequestResponse>;
  readonly status: number;
  readonly code: string;
  readonly field: string;
  /** A part of the reason that makes it actionable. */
  readonly says: string | RegExp;
  /** Details the error carried before {field, reason}, kept beside them. */
  readonly alsoKept?: Readonly<Record<string, unknown>>;
}

const rows: Readonly<Record<string, Row>> = {
  // POST invoices: schema, request shape, catalogue and amount checks.
  'invoice: an unknown field is named': { call: () => invoice({ ...base, amount: usdc(10), recipient: '0x1' }), status: 400, code: 'invalid_json', field: 'recipient', says: 'unknown field' },
  'invoice: an unknown field inside an assets item is named by its path': {
    call: () => invoice({ assets: [base, { ...base, memo: 'x' }], amount: '10' }),
    status: 400,
    code: 'invalid_json',
    field: 'assets[1].memo',
    says: 'unknown field',
  },
  'invoice: a missing chain_id is named': { call: () => invoice({ token: BASE_USDC, amount: usdc(10) }), status: 400, code: 'invalid_request', field: 'chain_id', says: 'required' },
  'invoice: a missing field inside assets is named': { call: () => invoice({ assets: [base, { chain_id: BASE }], amount: '10' }), status: 400, code: 'invalid_assets', field: 'assets[1].token', says: 'required' },
  'invoice: a wrong type inside assets is named': { call: () => invoice({ assets: [base, { chain_id: BASE, token: 7 }], amount: '10' }), status: 400, code: 'invalid_assets', field: 'assets[1].token', says: 'must be a string' },
  'invoice: a repeated assets pair names the repeat and the original': { call: () => invoice({ assets: [base, base], amount: '10' }), status: 400, code: 'invalid_assets', field: 'assets[1]', says: 'repeats assets[0]' },
  'invoice: assets beside chain_id': { call: () => invoice({ assets: [base], chain_id: BASE, amount: '10' }), status: 400, code: 'invalid_assets', field: 'assets', says: 'chain_id or token' },
  'invoice: a decimal amount without assets (Rule 1)': { call: () => invoice({ ...base, amount: '10.5' }), status: 400, code: 'invalid_amount', field: 'amount', says: 'must be a whole number of base units' },
  'invoice: a missing amount': { call: () => invoice(base), status: 400, code: 'invalid_amount', field: 'amount', says: 'required' },
  'invoice: a JSON number as amount': { call: () => invoice({ ...base, amount: 10_000_000 }), status: 400, code: 'invalid_amount', field: 'amount', says: 'must be a string' },
  'invoice: an expires_in outside the list': { call: () => invoice({ ...base, amount: usdc(10), expires_in: '2d' }), status: 400, code: 'invalid_expires_in', field: 'expires_in', says: 'must be one of 1d, 7d, 30d, 180d, 365d' },
  'invoice: an unknown network': { call: () => invoice({ chain_id: 999_999, token: BASE_USDC, amount: usdc(10) }), status: 400, code: 'unsupported_network', field: 'chain_id', says: 'GET /networks' },
  'invoice: a token not on the network': { call: () => invoice({ chain_id: BASE, token: TRON_USDT, amount: usdc(10) }), status: 400, code: 'unsupported_asset', field: 'token', says: 'not a token of Base' },
  'invoice: below minimum_payment': { call: () => invoice({ ...base, amount: '999999' }), status: 400, code: 'amount_below_minimum', field: 'amount', says: 'at least 1 USDC' },
  'invoice: over the sandbox limit': { call: () => invoice({ ...base, amount: usdc(10_001) }), status: 400, code: 'sandbox_amount_limit', field: 'amount', says: '10000 whole tokens' },
  'invoice: a return_url that is not http(s)': { call: () => invoice({ ...base, amount: usdc(10), return_url: 'javascript:alert(1)' }), status: 400, code: 'invalid_request', field: 'return_url', says: 'http or https URL' },
  'invoice: a body that is not an object': { call: () => invoice([base]), status: 400, code: 'invalid_json', field: 'body', says: 'must be a JSON object' },

  // POST deposits.
  'deposit: an amount is not accepted': { call: () => deposit({ ...base, amount: usdc(10) }), status: 400, code: 'invalid_amount', field: 'amount', says: 'not accepted on a deposit' },
  'deposit: an expires_in is not accepted': { call: () => deposit({ ...base, expires_in: '7d' }), status: 400, code: 'invalid_expires_in', field: 'expires_in', says: 'not accepted on a deposit' },

  // POST /merchants/{id}/shops.
  'shop: a missing name': { call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { sandbox: true }), status: 400, code: 'invalid_name', field: 'name', says: 'required' },
  'shop: a blank name': { call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { name: '  ', sandbox: true }), status: 400, code: 'invalid_name', field: 'name', says: 'must not be empty' },
  'shop: a recipient with a broken checksum': {
    call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { name: 'Live', sandbox: false, recipient: '0x000000000000000000000000000000000000DEAD' }),
    status: 400,
    code: 'invalid_recipient',
    field: 'recipient',
    says: 'EIP-55 checksum',
  },
  'shop: a delegate that is no address': {
    call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { name: 'Live', sandbox: false, recipient: '0x000000000000000000000000000000000000dEaD', delegate: '0x12' }),
    status: 400,
    code: 'invalid_recipient',
    field: 'delegate',
    says: '40 hex digits',
  },
  'shop: a live shop without recipient': { call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { name: 'Live', sandbox: false }), status: 400, code: 'invalid_recipient', field: 'recipient', says: 'required on a live shop' },
  'shop: a payout_target outside the list': {
    call: () => send('POST', `/merchants/${owner.merchant.id}/shops`, { name: 'Live', sandbox: true, payout_target: 'bank' }),
    status: 400,
    code: 'invalid_request',
    field: 'payout_target',
    says: 'must be one of address, wallet',
  },

  // POST /shops/{id}/keys.
  'key: eleven allowed IPs': {
    call: () => send('POST', `${shop()}/keys`, { name: 'ci', scopes: ['read'], allowed_ips: Array.from({ length: 11 }, (_, index) => `10.0.0.${index + 1}`) }),
    status: 400,
    code: 'too_many_allowed_ips',
    field: 'allowed_ips',
    says: 'at most 10',
  },
  'key: a bad allowed IP is named by its index': {
    call: () => send('POST', `${shop()}/keys`, { name: 'ci', scopes: ['read'], allowed_ips: ['10.0.0.1', '10.0.0.2', '::1', '127.1'] }),
    status: 400,
    code: 'invalid_allowed_ips',
    field: 'allowed_ips[3]',
    says: 'IPv4 address (four decimal parts)',
  },
  'key: allowed_ips not an array': { call: () => send('POST', `${shop()}/keys`, { name: 'ci', scopes: ['read'], allowed_ips: '10.0.0.1' }), status: 400, code: 'invalid_allowed_ips', field: 'allowed_ips', says: 'must be an array' },
  'key: an unknown scope': { call: () => send('POST', `${shop()}/keys`, { name: 'ci', scopes: ['read', 'admin'] }), status: 400, code: 'invalid_scopes', field: 'scopes[1]', says: 'must be one of read, write' },

  // POST /shops/{id}/webhooks.
  'webhook: a private address': {
    call: () => send('POST', `${shop()}/webhooks`, { url: 'https://127.0.0.1/hook', filters: ['invoice'] }, { key: true }),
    status: 400,
    code: 'invalid_webhook_url',
    field: 'url',
    says: 'not public',
  },
  'webhook: an unknown filter is named by its index': {
    call: () => send('POST', `${shop()}/webhooks`, { url: 'https://example.com/hook', filters: ['invoice', 'invoice.paid'] }, { key: true }),
    status: 400,
    code: 'invalid_filters',
    field: 'filters[1]',
    says: 'event name',
  },
  'webhook: missing filters': { call: () => send('POST', `${shop()}/webhooks`, { url: 'https://example.com/hook' }, { key: true }), status: 400, code: 'invalid_filters', field: 'filters', says: 'required' },

  // PATCH /profile (no Idempotency-Key).
  'profile: a theme outside the list': { call: () => send('PATCH', '/profile', { preferences: { theme: 'blue' } }), status: 400, code: 'invalid_profile', field: 'preferences.theme', says: 'must be one of dark, light, system' },
  'profile: a display name too long': { call: () => send('PATCH', '/profile', { display_name: 'x'.repeat(101) }), status: 400, code: 'invalid_profile', field: 'display_name', says: 'at most 100 characters' },
  'profile: an unknown preference': { call: () => send('PATCH', '/profile', { preferences: { font: 'serif' } }), status: 400, code: 'invalid_json', field: 'preferences.font', says: 'unknown field' },

  // PUT /shops/{id}/solana-recipient and /tron-recipient.
  'recipient: a Solana program-derived address': {
    call: () => send('PUT', `${shop()}/solana-recipient`, { address: SOLANA_PDA }),
    status: 400,
    code: 'invalid_solana_address',
    field: 'address',
    says: 'program-derived',
  },
  'recipient: a Tron address with a broken checksum': {
    call: () => send('PUT', `${shop()}/tron-recipient`, { address: TRON_BAD_CHECKSUM }),
    status: 400,
    code: 'invalid_tron_checksum',
    field: 'address',
    says: 'checksum',
  },
  'recipient: a malformed Tron address': { call: () => send('PUT', `${shop()}/tron-recipient`, { address: 'T123' }), status: 400, code: 'invalid_tron_address', field: 'address', says: '34 characters' },
  'recipient: a missing address': { call: () => send('PUT', `${shop()}/tron-recipient`, {}), status: 400, code: 'invalid_tron_address', field: 'address', says: 'required' },

  // Query parameters, headers and the body as a whole.
  'query: limit out of range': {
    call: () => send('GET', `${shop()}/payments?limit=0`, undefined, { key: true }),
    status: 400,
    code: 'invalid_request',
    field: 'limit',
    says: 'from 1 to',
    alsoKept: { minimum: 1, maximum: 100 },
  },
  'query: an unknown cursor': { call: () => send('GET', `${shop()}/deliveries?cursor=nonsense`, undefined, { key: true }), status: 400, code: 'invalid_cursor', field: 'cursor', says: 'next_cursor' },
  'header: no Idempotency-Key': {
    call: () => app.request({ method: 'POST', url: `/api/v1${shop()}/invoices`, headers: authed(owner.key.token), payload: { ...base, amount: usdc(10) } }),
    status: 400,
    code: 'idempotency_key_required',
    field: 'Idempotency-Key',
    says: 'required',
  },
  'header: a body that is not JSON': {
    call: () => app.request({ method: 'POST', url: `/api/v1${shop()}/invoices`, headers: { ...authed(owner.key.token, newIdempotencyKey()), 'content-type': 'text/plain' }, payload: 'amount=1' }),
    status: 400,
    code: 'json_content_type_required',
    field: 'Content-Type',
    says: 'application/json',
  },
  'body: malformed JSON': {
    call: () => app.request({ method: 'POST', url: `/api/v1${shop()}/invoices`, headers: { ...authed(owner.key.token, newIdempotencyKey()), 'content-type': 'application/json' }, payload: '{"chain_id": 8453,' }),
    status: 400,
    code: 'invalid_json',
    field: 'body',
    says: 'not valid JSON',
  },
};

describe('issue 20 item 4: input errors carry details {field, reason}; code, status and message as before', () => {
  it.each(Object.entries(rows))('%s', async (_name, row) => {
    const response = await row.call();
    expect(response.statusCode, response.body).toBe(row.status);
    const error = response.json().error;
    expect(error.code).toBe(row.code);
    expect(error.message).toBe(row.code);
    expect(Object.keys(error.details).sort()).toEqual(['field', 'reason', ...Object.keys(row.alsoKept ?? {})].sort());
    expect(error.details).toMatchObject(row.alsoKept ?? {});
    expect(error.details.field).toBe(row.field);
    if (typeof row.says === 'string') expect(error.details.reason).toContain(row.says);
    else expect(error.details.reason).toMatch(row.says);
  });
});

describe('SPEC-named details keep their shapes', () => {
  it('Rule 2: a group\'s failing option stays {chain_id, token}, even where {field, reason} would apply', async () => {
    const response = await invoice({ assets: [base, { chain_id: 999_999, token: 'X' }], amount: '10' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'unsupported_network', message: 'unsupported_network', details: { chain_id: 999_999, token: 'X' } } });
    const belowMinimum = await invoice({ assets: [base], amount: '0.5' });
    expect(belowMinimum.json().error.details).toEqual({ chain_id: BASE, token: BASE_USDC });
  });

  it('SPEC "Authentication" 9: a blocked account\'s reason stays {reason}', async () => {
    const blocked = await createOwnerWithShop(app.context.db);
    await app.context.db.updateTable('users').set({ blocked_at: new Date(), blocked_reason: 'fraud review' }).where('id', '=', blocked.user.id).execute();
    const response = await app.request({ method: 'PATCH', url: '/api/v1/profile', headers: authed(blocked.session.token), payload: { display_name: 'x'.repeat(500) } });
    expect(response.json()).toEqual({ error: { code: 'account_disabled', message: 'account_disabled', details: { reason: 'fraud review' } } });
  });

  it('a credential field in the wrong shape stays a bare unauthorized (no hint of what would pass)', async () => {
    const response = await app.request({ method: 'POST', url: '/api/v1/auth/email/verify', payload: { challenge_id: 'x', code: 12 } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
  });

  it('field names sent by the caller are echoed at most 100 characters long', async () => {
    const response = await invoice({ ...base, amount: usdc(10), ['x'.repeat(5000)]: 1 });
    expect(response.json().error.code).toBe('invalid_json');
    expect(response.json().error.details.field).toBe(`${'x'.repeat(100)}…`);
  });

  it('a live shop\'s refusal names the token (asset_not_ready) before the network', async () => {
    const response = await send('POST', `/shops/${liveShopId}/invoices`, { chain_id: 728126428, token: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', amount: usdc(10) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'asset_not_ready', details: { field: 'token', reason: expect.stringContaining('not ready for live payments') } });
  });
});
