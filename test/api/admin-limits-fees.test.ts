import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import type { TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { admin, createAdminApp, errorOf, operatorState } from './admin-helpers.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, createDeposit, createInvoice, usdc } from './issuances-helpers.js';
import { expectErrorEnvelope } from '../support/error-envelope.js';

// Issue 10 item 7; SPEC "Limits" ("Operator staff can change invoice, deposit address and team
// limits per merchant"): GET /admin/v1/merchants/{id}, PATCH …/limits and …/fees, and new
// invoices and deposits obeying them.

let app: TestApp;
beforeAll(async () => {
  app = await createAdminApp();
});
afterAll(async () => {
  await app.close();
});

const patchLimits = (merchantId: string, payload: unknown) => admin(app, 'PATCH', `/merchants/${merchantId}/limits`, { payload });
const patchFees = (merchantId: string, payload: unknown) => admin(app, 'PATCH', `/merchants/${merchantId}/fees`, { payload });
const invoice = { chain_id: BASE, token: BASE_USDC, amount: usdc(10) };

async function feeTermsOf(issuanceId: string) {
  return app.context.db.selectFrom('issuances').select(['fee_bps', 'fee_minimum', 'fee_maximum']).where('id', '=', issuanceId).executeTakeFirstOrThrow();
}

describe('GET /admin/v1/merchants/{id}', () => {
  it('shows the merchant, its standing, the limits in force with SPEC defaults, and no fee overrides', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await admin(app, 'GET', `/merchants/${owner.merchant.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: owner.merchant.id,
      name: 'Test merchant',
      created_at: expect.any(String),
      blocked: false,
      blocked_at: null,
      blocked_reason: null,
      limits: { active_invoices: 2000, deposit_addresses: { evm: 10000, tron: 10000, solana: 10 }, team: 10 },
      limit_overrides: { active_invoices: null, deposit_addresses: { evm: null, tron: null, solana: null }, team: null },
      fee_overrides: [],
    });
  });
});

describe('PATCH /admin/v1/merchants/{id}/limits', () => {
  it('overrides the active-invoice limit: the next invoice over it is active_invoice_limit_reached; null restores the default', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await patchLimits(owner.merchant.id, { active_invoices: 1, team: 3 });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      limits: { active_invoices: 1, team: 3, deposit_addresses: { evm: 10000 } },
      limit_overrides: { active_invoices: 1, team: 3, deposit_addresses: { evm: null } },
    });
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
    const refused = await createInvoice(app, owner.key.token, owner.shop.id, invoice);
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'active_invoice_limit_reached' });

    const reset = await patchLimits(owner.merchant.id, { active_invoices: null });
    expect(reset.json()).toMatchObject({ limits: { active_invoices: 2000, team: 3 }, limit_overrides: { active_invoices: null, team: 3 } });
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
  });

  it('overrides deposit addresses per family, leaving the others at their default', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await patchLimits(owner.merchant.id, { deposit_addresses: { evm: 1 } });
    expect(response.json()).toMatchObject({ limits: { deposit_addresses: { evm: 1, tron: 10000, solana: 10 } } });
    expect((await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).statusCode).toBe(202);
    const refused = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: ARBITRUM, token: ARBITRUM_USDC });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toEqual({ code: 'deposit_address_limit_reached', message: 'deposit_address_limit_reached', details: { family: 'evm' } });
    expect((await patchLimits(owner.merchant.id, { deposit_addresses: { evm: 2 } })).statusCode).toBe(200);
    expect((await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: ARBITRUM, token: ARBITRUM_USDC })).statusCode).toBe(202);
  });

  it('refuses bad values with 400 invalid_limits (unknown fields: invalid_json), storing nothing; unknown merchant 404', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const before = await operatorState(app, owner.merchant.id);
    const cases: [unknown, string][] = [
      [{ active_invoices: -1 }, 'invalid_limits'],
      [{ active_invoices: 1.5 }, 'invalid_limits'],
      [{ active_invoices: '5' }, 'invalid_limits'],
      [{ team: 10_000_001 }, 'invalid_limits'],
      [{ deposit_addresses: { evm: -2 } }, 'invalid_limits'],
      [{ deposit_addresses: 3 }, 'invalid_limits'],
      [{}, 'invalid_limits'],
      [{ deposit_addresses: {} }, 'invalid_limits'],
      [{ shops: 5 }, 'invalid_json'],
      [{ deposit_addresses: { bitcoin: 1 } }, 'invalid_json'],
    ];
    for (const [payload, code] of cases) {
      const response = await patchLimits(owner.merchant.id, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expectErrorEnvelope({ error: errorOf(response) }, code);
    }
    expect(await operatorState(app, owner.merchant.id)).toEqual(before);
    const unknown = await patchLimits(newId(), { team: 3 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
    expect((await operatorState(app, owner.merchant.id)).auditEntries).toBe(before.auditEntries);
  });
});

describe('PATCH /admin/v1/merchants/{id}/fees', () => {
  const baseInvoiceTerms = { bps: 100, minimum: '0', maximum: '9000000000000000000' };

  it("new invoices take the merchant's terms, existing ones keep theirs; null goes back to the catalogue's", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const earlier = (await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json();
    const response = await patchFees(owner.merchant.id, { overrides: [{ chain_id: BASE, kind: 'invoice', terms: baseInvoiceTerms }] });
    expect(response.statusCode).toBe(200);
    expect(response.json().fee_overrides).toEqual([{ chain_id: BASE, kind: 'invoice', ...baseInvoiceTerms, updated_at: expect.any(String) }]);

    const later = (await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json();
    expect(await feeTermsOf(later.id)).toEqual({ fee_bps: 100, fee_minimum: '0', fee_maximum: '9000000000000000000' });
    // The catalogue's Base terms (50 bps, 0.1 / 5 tokens).
    expect(await feeTermsOf(earlier.id)).toEqual({ fee_bps: 50, fee_minimum: '100000000000000000', fee_maximum: '5000000000000000000' });
    // Deposits and other networks are untouched.
    const deposit = (await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();
    expect((await feeTermsOf(deposit.id)).fee_bps).toBe(50);

    expect((await admin(app, 'GET', `/merchants/${owner.merchant.id}`)).json().fee_overrides).toHaveLength(1);
    // The merchant sees the terms it now gets (SPEC "Shop terms").
    const terms = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/terms`, headers: { authorization: `Bearer ${owner.key.token}` } });
    const base = terms.json().find((network: { chain_id: number }) => network.chain_id === BASE);
    expect(base.invoice).toEqual({ bps: 100, minimum: '0', maximum: '9000000000000000000' });
    expect(base.deposit).toEqual({ bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' });
    const reset = await patchFees(owner.merchant.id, { overrides: [{ chain_id: BASE, kind: 'invoice', terms: null }] });
    expect(reset.json().fee_overrides).toEqual([]);
    const after = (await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json();
    expect((await feeTermsOf(after.id)).fee_bps).toBe(50);
  });

  it('deposits take deposit terms', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expect((await patchFees(owner.merchant.id, { overrides: [{ chain_id: BASE, kind: 'deposit', terms: { bps: 0, minimum: '0', maximum: '0' } }] })).statusCode).toBe(200);
    const deposit = (await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();
    expect(await feeTermsOf(deposit.id)).toEqual({ fee_bps: 0, fee_minimum: '0', fee_maximum: '0' });
  });

  it('validates like the catalogue: bps, 18-decimal integer strings, minimum ≤ maximum, minimum_payment creatable; all or nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const before = await operatorState(app, owner.merchant.id);
    const good = { chain_id: ARBITRUM, kind: 'invoice', terms: baseInvoiceTerms };
    const invalid = (field: string, chainId = BASE, kind = 'invoice') => ({ code: 'invalid_fee_terms', message: 'invalid_fee_terms', details: { chain_id: chainId, kind, field } });
    const cases: [unknown, unknown][] = [
      [{ overrides: [good, { chain_id: BASE, kind: 'invoice', terms: { ...baseInvoiceTerms, bps: 10_001 } }] }, invalid('bps')],
      [{ overrides: [{ chain_id: BASE, kind: 'deposit', terms: { ...baseInvoiceTerms, bps: -1 } }] }, invalid('bps', BASE, 'deposit')],
      [{ overrides: [{ chain_id: BASE, kind: 'invoice', terms: { ...baseInvoiceTerms, minimum: '0.5' } }] }, invalid('minimum')],
      [{ overrides: [{ chain_id: BASE, kind: 'invoice', terms: { ...baseInvoiceTerms, maximum: '-1' } }] }, invalid('maximum')],
      [{ overrides: [{ chain_id: BASE, kind: 'invoice', terms: { bps: 1, minimum: '2', maximum: '1' } }] }, invalid('minimum')],
      // A 1-token minimum fee reaches Base's minimum_payment of 1 token: such an invoice could not be created.
      [{ overrides: [{ chain_id: BASE, kind: 'invoice', terms: { bps: 1, minimum: '1000000000000000000', maximum: '1000000000000000000' } }] }, invalid('minimum')],
      [{ overrides: [good, good] }, invalid('chain_id', ARBITRUM)],
      [{ overrides: [{ chain_id: 999_999, kind: 'invoice', terms: baseInvoiceTerms }] }, { code: 'unsupported_network', message: 'unsupported_network', details: { chain_id: 999_999 } }],
      [{ overrides: [] }, { code: 'invalid_fee_terms', message: 'invalid_fee_terms', details: { field: 'overrides', reason: 'must list at least one change' } }],
      [
        { overrides: [{ chain_id: BASE, kind: 'refund', terms: null }] },
        { code: 'invalid_fee_terms', message: 'invalid_fee_terms', details: { field: 'overrides[0].kind', reason: 'must be one of invoice, deposit' } },
      ],
      [
        { overrides: [{ chain_id: BASE, kind: 'invoice', terms: { ...baseInvoiceTerms, fee_wallet: '0x' } }] },
        { code: 'invalid_json', message: 'invalid_json', details: { field: 'overrides[0].terms.fee_wallet', reason: 'unknown field' } },
      ],
      [{}, { code: 'invalid_fee_terms', message: 'invalid_fee_terms', details: { field: 'overrides', reason: 'required' } }],
    ];
    for (const [payload, error] of cases) {
      const response = await patchFees(owner.merchant.id, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response), JSON.stringify(payload)).toEqual(error);
    }
    expect(await operatorState(app, owner.merchant.id)).toEqual(before);
    expect((await patchFees(newId(), { overrides: [good] })).statusCode).toBe(404);
    expect(await operatorState(app, owner.merchant.id)).toEqual(before);
  });
});
