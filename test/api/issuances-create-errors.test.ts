import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  SOLANA,
  SOLANA_USDC,
  TRON,
  TRON_USDC,
  TRON_USDT,
  createDeposit,
  createInvoice,
  storedCounts,
  usdc,
} from './issuances-helpers.js';

// SPEC "Invoices and deposits" Rules 1-3, "Errors", "Limits": every creation error with its
// status and code, and nothing stored (no issuance, group, event).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

const base = { chain_id: BASE, token: BASE_USDC };

async function expectRefused(
  kind: 'invoice' | 'deposit',
  payload: unknown,
  code: string,
  options: { live?: boolean; details?: unknown } = {},
) {
  const owner = await createOwnerWithShop(app.context.db);
  let shopId = owner.shop.id;
  let token = owner.key.token;
  if (options.live === true) {
    const live = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    shopId = live.id;
    token = (await createApiKey(app.context.db, { id: live.id, merchantId: owner.merchant.id })).token;
  }
  const response = kind === 'invoice' ? await createInvoice(app, token, shopId, payload) : await createDeposit(app, token, shopId, payload);
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json().error.code).toBe(code);
  if (options.details !== undefined) expect(response.json().error.details).toEqual(options.details);
  expect(await storedCounts(app, shopId)).toEqual({ issuances: 0, groups: 0, transfers: 0, payouts: 0, events: 0 });
}

describe('SPEC "Errors" at creation: status, code, nothing stored', () => {
  it.each([
    ['unsupported_network: unknown chain', { chain_id: 999_999, token: BASE_USDC, amount: usdc(10) }, 'unsupported_network'],
    ['unsupported_asset: token not on the network', { chain_id: BASE, token: ARBITRUM_USDC, amount: usdc(10) }, 'unsupported_asset'],
    ['solana_sandbox_unavailable', { chain_id: SOLANA, token: SOLANA_USDC, amount: usdc(10) }, 'solana_sandbox_unavailable'],
    ['amount_below_minimum (Base minimum 1 token)', { ...base, amount: '999999' }, 'amount_below_minimum'],
    ['amount_below_minimum for 0', { ...base, amount: '0' }, 'amount_below_minimum'],
    ['invoice_amount_limit above 1,000,000 tokens', { ...base, amount: usdc(1_000_001) }, 'invoice_amount_limit'],
    ['sandbox_amount_limit above 10,000 tokens', { ...base, amount: usdc(10_001) }, 'sandbox_amount_limit'],
    ['invalid_amount: decimal without assets (Rule 1)', { ...base, amount: '10.5' }, 'invalid_amount'],
    ['invalid_amount: not a number', { ...base, amount: 'ten' }, 'invalid_amount'],
    ['invalid_amount: leading zero', { ...base, amount: '010' }, 'invalid_amount'],
    ['invalid_amount: missing', { ...base }, 'invalid_amount'],
    ['invalid_amount: a JSON number', { ...base, amount: 10_000_000 }, 'invalid_amount'],
    ['invalid_amount: group amount not decimal', { assets: [base], amount: '1e3' }, 'invalid_amount'],
    ['invalid_expires_in: not allowed value', { ...base, amount: usdc(10), expires_in: '2d' }, 'invalid_expires_in'],
    ['invalid_expires_in: wrong type', { ...base, amount: usdc(10), expires_in: 30 }, 'invalid_expires_in'],
    ['invalid_assets: assets with chain_id', { assets: [base], chain_id: BASE, amount: '10' }, 'invalid_assets'],
    ['invalid_assets: assets with token', { assets: [base], token: BASE_USDC, amount: '10' }, 'invalid_assets'],
    ['invalid_assets: empty', { assets: [], amount: '10' }, 'invalid_assets'],
    ['invalid_assets: repeated pair', { assets: [base, base], amount: '10' }, 'invalid_assets'],
    ['invalid_assets: not an array', { assets: 'base', amount: '10' }, 'invalid_assets'],
    ['invalid_request: no chain_id', { token: BASE_USDC, amount: usdc(10) }, 'invalid_request'],
    ['invalid_request: return_url not a URL', { ...base, amount: usdc(10), return_url: 'javascript:alert(1)' }, 'invalid_request'],
    ['invalid_json: unknown field', { ...base, amount: usdc(10), recipient: '0x1' }, 'invalid_json'],
  ])('invoice %s', async (_name, payload, code) => {
    await expectRefused('invoice', payload, code);
  });

  it.each([
    ['invalid_expires_in: sent on a deposit', { ...base, expires_in: '30d' }, 'invalid_expires_in'],
    ['invalid_amount: sent on a deposit', { ...base, amount: usdc(10) }, 'invalid_amount'],
    ['unsupported_network', { chain_id: 999_999, token: BASE_USDC }, 'unsupported_network'],
    ['solana_sandbox_unavailable', { chain_id: SOLANA, token: SOLANA_USDC }, 'solana_sandbox_unavailable'],
    ['invalid_assets: repeated pair', { assets: [base, base] }, 'invalid_assets'],
  ])('deposit %s', async (_name, payload, code) => {
    await expectRefused('deposit', payload, code);
  });

  it('live shops: network_not_ready (no chain adapter configured yet), for invoices and deposits', async () => {
    await expectRefused('invoice', { ...base, amount: usdc(10) }, 'network_not_ready', { live: true });
    await expectRefused('deposit', base, 'network_not_ready', { live: true });
  });

  it('live shops: asset_not_ready for a token without status ready', async () => {
    await expectRefused('invoice', { chain_id: TRON, token: TRON_USDC, amount: usdc(10) }, 'asset_not_ready', { live: true });
  });

  it('live shops: tron_setup_required / solana_setup_required without that family’s recipient', async () => {
    await expectRefused('invoice', { chain_id: TRON, token: TRON_USDT, amount: usdc(10) }, 'tron_setup_required', { live: true });
    await expectRefused('deposit', { chain_id: SOLANA, token: SOLANA_USDC }, 'solana_setup_required', { live: true });
  });

  it('sandbox shops too: tron_setup_required without a Tron recipient (issue 23: the sandbox rehearses the live setup); an EVM sandbox shop needs none', async () => {
    await expectRefused('invoice', { chain_id: TRON, token: TRON_USDT, amount: usdc(10) }, 'tron_setup_required');
    await expectRefused('deposit', { chain_id: TRON, token: TRON_USDT }, 'tron_setup_required');
    await expectRefused('invoice', { assets: [base, { chain_id: TRON, token: TRON_USDT }], amount: '10' }, 'tron_setup_required', { details: { chain_id: TRON, token: TRON_USDT } });
  });

  it('Rule 2: one failing option fails the group, nothing is created, details name the option', async () => {
    await expectRefused('invoice', { assets: [base, { chain_id: 999_999, token: 'X' }], amount: '10' }, 'unsupported_network', {
      details: { chain_id: 999_999, token: 'X' },
    });
    await expectRefused('invoice', { assets: [base, { chain_id: ARBITRUM, token: BASE_USDC }], amount: '10' }, 'unsupported_asset', {
      details: { chain_id: ARBITRUM, token: BASE_USDC },
    });
    await expectRefused('invoice', { assets: [base, { chain_id: SOLANA, token: SOLANA_USDC }], amount: '10' }, 'solana_sandbox_unavailable', {
      details: { chain_id: SOLANA, token: SOLANA_USDC },
    });
    await expectRefused('invoice', { assets: [base], amount: '0.5' }, 'amount_below_minimum', { details: { chain_id: BASE, token: BASE_USDC } });
    await expectRefused('invoice', { assets: [base], amount: '10000.000001' }, 'sandbox_amount_limit', { details: { chain_id: BASE, token: BASE_USDC } });
    await expectRefused('invoice', { assets: [base], amount: '1.0000001' }, 'invalid_amount', { details: { chain_id: BASE, token: BASE_USDC } });
  });
});

describe('SPEC "Authentication" on creation', () => {
  it('a read-only key may not create (403 forbidden); another shop’s key neither', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const reader = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const response = await createInvoice(app, reader.token, owner.shop.id, { ...base, amount: usdc(10) });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
    const other = await createOwnerWithShop(app.context.db);
    // Another merchant's key: the shop answers as if absent (decision 0016).
    const foreign = await createInvoice(app, other.key.token, owner.shop.id, { ...base, amount: usdc(10) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('shop_not_found');
    expect(await storedCounts(app, owner.shop.id)).toMatchObject({ issuances: 0 });
  });

  it('Idempotency-Key required; the same key answers the stored response and creates once (Rule 5)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const missing = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/invoices`,
      headers: authed(owner.key.token),
      payload: { ...base, amount: usdc(10) },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('idempotency_key_required');

    const key = newIdempotencyKey();
    const first = await createInvoice(app, owner.key.token, owner.shop.id, { ...base, amount: usdc(10), external_id: 'same' }, key);
    const again = await createInvoice(app, owner.key.token, owner.shop.id, { ...base, amount: usdc(10), external_id: 'same' }, key);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    const conflict = await createInvoice(app, owner.key.token, owner.shop.id, { ...base, amount: usdc(11) }, key);
    expect(conflict.statusCode).toBe(409);
    // external_id does not prevent duplicates.
    await createInvoice(app, owner.key.token, owner.shop.id, { ...base, amount: usdc(10), external_id: 'same' });
    expect((await storedCounts(app, owner.shop.id)).issuances).toBe(2);
  });
});
