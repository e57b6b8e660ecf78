import { describe, expect, it } from 'vitest';
import { units18 } from '../../src/money/index.js';
import { amountOwed, gasCapWei, readAuthorization, unavailability } from '../../src/x402/x402-offer.js';
import type { X402Invoice } from '../../src/x402/x402.repository.js';

// docs/decisions/0035: what x402 offers, the amount it asks for, and the relayer's gas cap.

const NOW = new Date('2026-11-29T12:00:00Z');
const invoice = (overrides: Partial<X402Invoice> = {}): X402Invoice => ({
  id: '00000000-0000-4000-8000-000000000001',
  publicId: 'AAAAAAAAAAAAAAAA',
  kind: 'invoice',
  sandbox: false,
  inGroup: false,
  chainId: 8453,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  tokenDecimals: 6,
  amount: 100_000_000n,
  received: 0n,
  status: 'open',
  address: '0x1111111111111111111111111111111111111111',
  cancelledAt: null,
  disabledAt: null,
  expiresAt: new Date('2026-12-29T12:00:00Z'),
  feeTerms: { bps: 50, minimum: units18(10n ** 17n), maximum: units18(5n * 10n ** 18n) },
  ...overrides,
});
const offered = { liveEvm: true, nativePrice: '5000', eip712: { name: 'USD Coin', version: '2' } };

describe('x402 offer', () => {
  it('is made only for live EVM invoices in an EIP-3009 token on a network with a native price', () => {
    expect(unavailability(invoice(), offered)).toBeUndefined();
    expect(unavailability(invoice({ kind: 'deposit', amount: null }), offered)).toEqual({ code: 'x402_unavailable', reason: 'deposit' });
    expect(unavailability(invoice({ inGroup: true }), offered)).toEqual({ code: 'x402_unavailable', reason: 'group' });
    expect(unavailability(invoice({ sandbox: true }), offered)).toEqual({ code: 'x402_unavailable', reason: 'sandbox' });
    expect(unavailability(invoice(), { ...offered, liveEvm: false })).toEqual({ code: 'x402_unavailable', reason: 'network' });
    expect(unavailability(invoice(), { ...offered, nativePrice: undefined })).toEqual({ code: 'x402_unavailable', reason: 'network' });
    expect(unavailability(invoice(), { ...offered, eip712: undefined })).toEqual({ code: 'x402_unavailable', reason: 'token' });
  });

  it('asks for exactly what is owed: the amount less received less what is in flight', () => {
    expect(amountOwed(invoice(), 0n, NOW)).toBe(100_000_000n);
    expect(amountOwed(invoice({ received: 40_000_000n }), 0n, NOW)).toBe(60_000_000n);
    expect(amountOwed(invoice({ received: 40_000_000n }), 60_000_000n, NOW)).toEqual({ code: 'settlement_pending' });
    expect(amountOwed(invoice({ status: 'funded', received: 100_000_000n }), 0n, NOW)).toEqual({ code: 'invoice_not_open', status: 'funded' });
    expect(amountOwed(invoice({ cancelledAt: NOW }), 0n, NOW)).toEqual({ code: 'invoice_not_open', status: 'cancelled' });
    expect(amountOwed(invoice({ expiresAt: NOW }), 0n, NOW)).toEqual({ code: 'invoice_not_open', status: 'cancelled' });
    expect(amountOwed(invoice({ status: 'registering', address: null }), 0n, NOW)).toEqual({ code: 'invoice_not_open', status: 'registering' });
  });

  it('caps the gas at the invoice fee valued at the native price, rounded down', () => {
    // fee(100 USDC) = 0.5 USDC = 500,000 base units; at 5,000 USDC per ETH: 0.0001 ETH.
    expect(gasCapWei(500_000n, 6, '5000')).toBe(10n ** 14n);
    expect(gasCapWei(100_000n, 6, '1')).toBe(10n ** 17n);
    expect(gasCapWei(1n, 6, '3')).toBe(333_333_333_333n);
    expect(gasCapWei(10n ** 17n, 18, '2500.5')).toBe((10n ** 17n * 10n ** 18n * 10n) / (25005n * 10n ** 18n));
  });

  it('reads an EIP-3009 payload field by field and refuses any malformed one', () => {
    const good = {
      signature: `0x${'ab'.repeat(65)}`,
      authorization: {
        from: '0x2222222222222222222222222222222222222222',
        to: '0x1111111111111111111111111111111111111111',
        value: '100000000',
        validAfter: '0',
        validBefore: '1800000000',
        nonce: `0x${'CD'.repeat(32)}`,
      },
    };
    expect(readAuthorization(good)).toMatchObject({ value: 100_000_000n, validBefore: 1_800_000_000n, nonce: `0x${'cd'.repeat(32)}` });
    const bad = (change: Record<string, unknown>) => readAuthorization({ ...good, authorization: { ...good.authorization, ...change } });
    expect(bad({ value: '-1' })).toBeUndefined();
    expect(bad({ value: '01' })).toBeUndefined();
    expect(bad({ value: 100 })).toBeUndefined();
    expect(bad({ from: '0x1234' })).toBeUndefined();
    expect(bad({ nonce: '0x12' })).toBeUndefined();
    expect(readAuthorization({ ...good, signature: 'zz' })).toBeUndefined();
    expect(readAuthorization({ signature: good.signature })).toBeUndefined();
  });
});
