import { describe, expect, it } from 'vitest';
import { addressCodec, familyRules, CHAIN_FAMILIES } from '../../src/chains/index.js';
import { base58 } from '../../src/chains/base58.js';
import { newPaymentReference, SOLANA_PAY_TEXT_MAX, solanaPayText, solanaPayUri } from '../../src/chains/solana/solana-pay.js';
import { qrSvg } from '../../src/checkout/payment-uri.js';

// Issue 24 item 7 (decision 0039): the hosted page's Solana Pay transfer request,
// solana:<address>?amount=<decimal>&spl-token=<mint>&reference=<base58>&label=…&message=…

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const REFERENCE = '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny';
const base = { chainId: 900, token: MINT, tokenDecimals: 6, address: WALLET, amount: 7_250_000n };

/** The query of a Solana Pay URL, decoded as a wallet reads it. */
function queryOf(uri: string): Map<string, string> {
  const [scheme, rest = ''] = uri.split(':', 2);
  expect(scheme).toBe('solana');
  const [, query = ''] = rest.split('?', 2);
  return new Map(query.split('&').map((pair) => {
    const [name = '', value = ''] = pair.split('=', 2);
    return [name, decodeURIComponent(value)];
  }));
}

describe('Solana Pay transfer request (issue 24 item 7)', () => {
  it('carries the fields in the order of the spec: amount, spl-token, reference, label, message', () => {
    expect(solanaPayUri({ ...base, reference: REFERENCE, label: 'Shop', message: 'Invoice abc' })).toBe(
      `solana:${WALLET}?amount=7.25&spl-token=${MINT}&reference=${REFERENCE}&label=Shop&message=Invoice%20abc`,
    );
    // The page reaches it through the family's codec.
    expect(addressCodec('solana').paymentUri({ ...base, reference: REFERENCE })).toBe(`solana:${WALLET}?amount=7.25&spl-token=${MINT}&reference=${REFERENCE}`);
  });

  it('amount in decimal tokens: no exponent, trailing zeros trimmed, whole tokens without a point; omitted for a deposit', () => {
    expect(queryOf(solanaPayUri({ ...base, amount: 1n })).get('amount')).toBe('0.000001');
    expect(queryOf(solanaPayUri({ ...base, amount: 10_000_000n })).get('amount')).toBe('10');
    expect(queryOf(solanaPayUri({ ...base, amount: 12_500_000n })).get('amount')).toBe('12.5');
    expect(queryOf(solanaPayUri({ ...base, amount: 123_456_789_012_345_678_901n })).get('amount')).toBe('123456789012345.678901');
    expect(queryOf(solanaPayUri({ ...base, tokenDecimals: 9, amount: 1n })).get('amount')).toBe('0.000000001');
    expect(solanaPayUri({ ...base, amount: null })).toBe(`solana:${WALLET}?spl-token=${MINT}`);
  });

  it('label and message are percent-encoded UTF-8: spaces, &, =, #, ?, + and non-ASCII cannot end the value or start another', () => {
    const uri = solanaPayUri({ ...base, label: 'Tom & Jerry = #1?', message: 'Счёт №5 + café 🍰' });
    expect(uri).toContain('&label=Tom%20%26%20Jerry%20%3D%20%231%3F&message=');
    expect(uri).toContain('message=%D0%A1%D1%87%D1%91%D1%82%20%E2%84%965%20%2B%20caf%C3%A9%20%F0%9F%8D%B0');
    expect(uri).not.toMatch(/[^\x21-\x7e]/);
    const query = queryOf(uri);
    expect(query.get('label')).toBe('Tom & Jerry = #1?');
    expect(query.get('message')).toBe('Счёт №5 + café 🍰');
    expect([...query.keys()]).toEqual(['amount', 'spl-token', 'label', 'message']);
  });

  it('label and message are one short line: control characters and line breaks become spaces, long text is cut on a code point', () => {
    expect(solanaPayText('  Order\n\t42\u0007 ')).toBe('Order 42');
    expect(solanaPayText(' \n ')).toBeUndefined();
    const long = '🍰'.repeat(100);
    const cut = solanaPayText(long) ?? '';
    expect([...cut]).toHaveLength(SOLANA_PAY_TEXT_MAX);
    expect(cut.endsWith('🍰…')).toBe(true);
    // An empty description leaves no empty `message=`.
    expect(solanaPayUri({ ...base, label: '', message: '   ' })).toBe(`solana:${WALLET}?amount=7.25&spl-token=${MINT}`);
  });

  it('a description of any length still makes a QR code (the request stays short)', () => {
    const uri = solanaPayUri({ ...base, reference: REFERENCE, label: 'x'.repeat(5_000), message: 'ж'.repeat(5_000) });
    expect(uri.length).toBeLessThan(800);
    expect(qrSvg(uri, 'QR')).toMatch(/^<svg /);
  });

  it('a reference is 32 random bytes in base58, a new one each time', () => {
    const first = newPaymentReference();
    expect(base58.decode(first)).toHaveLength(32);
    expect(newPaymentReference()).not.toBe(first);
  });

  it('only Solana carries a reference in its request; EVM and Tron ignore label, message and reference', () => {
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).paymentReference)).toEqual(['solana']);
    const tron = addressCodec('tron').paymentUri({ ...base, chainId: 728126428, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', reference: REFERENCE, label: 'a', message: 'b' });
    expect(tron).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });

  it('explorer links keep the cluster of a catalogue root with a query (explorer.solana.com?cluster=devnet)', () => {
    const solana = addressCodec('solana');
    expect(solana.explorerTxUrl('https://explorer.solana.com', 'sig')).toBe('https://explorer.solana.com/tx/sig');
    expect(solana.explorerTxUrl('https://explorer.solana.com/?cluster=devnet', 'sig')).toBe('https://explorer.solana.com/tx/sig?cluster=devnet');
    expect(solana.explorerAddressUrl('https://solscan.io?cluster=devnet', WALLET)).toBe(`https://solscan.io/address/${WALLET}?cluster=devnet`);
  });
});
