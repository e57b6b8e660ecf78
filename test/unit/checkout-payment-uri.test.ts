import { describe, expect, it } from 'vitest';
import { groupDigits, langFromAcceptLanguage } from '../../src/checkout/checkout-page-text.js';
import { paymentUri, qrSvg } from '../../src/checkout/payment-uri.js';

// Issue 12 "Deliver" 1 and 4: wallet payment requests per family; the page's language and digits.

const EVM_TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const EVM_TO = '0x1111111111111111111111111111111111111111';

describe('wallet payment request (paymentUri)', () => {
  it('EVM: EIP-681 ERC-20 transfer with the amount in base units', () => {
    expect(paymentUri({ family: 'evm', chainId: 8453, token: EVM_TOKEN, tokenDecimals: 6, address: EVM_TO, amount: 12_500_500_000n })).toBe(
      `ethereum:${EVM_TOKEN}@8453/transfer?address=${EVM_TO}&uint256=12500500000`,
    );
  });

  it('EVM deposit: no amount, the payer chooses', () => {
    expect(paymentUri({ family: 'evm', chainId: 1, token: EVM_TOKEN, tokenDecimals: 6, address: EVM_TO, amount: null })).toBe(
      `ethereum:${EVM_TOKEN}@1/transfer?address=${EVM_TO}`,
    );
  });

  it('Solana: Solana Pay with a decimal amount and the spl-token mint', () => {
    const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    const to = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    expect(paymentUri({ family: 'solana', chainId: 900, token: mint, tokenDecimals: 6, address: to, amount: 7_250_000n })).toBe(
      `solana:${to}?amount=7.25&spl-token=${mint}`,
    );
    expect(paymentUri({ family: 'solana', chainId: 900, token: mint, tokenDecimals: 6, address: to, amount: null })).toBe(`solana:${to}?spl-token=${mint}`);
  });

  it('Tron: the plain address', () => {
    const to = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    expect(paymentUri({ family: 'tron', chainId: 728126428, token: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', tokenDecimals: 6, address: to, amount: 1n })).toBe(to);
  });

  it('the QR SVG is one path on a white square with the quiet zone, labelled for screen readers', () => {
    const svg = qrSvg('ethereum:0x1@1/transfer?address=0x2', 'QR label');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1" role="img" aria-label="QR label"/);
    expect(svg.match(/<path /g)).toHaveLength(1);
    expect(svg).toContain('fill="#fff"');
  });
});

describe('page language and digits', () => {
  it('Accept-Language: the best-ranked of en and ru, English otherwise', () => {
    expect(langFromAcceptLanguage(undefined)).toBe('en');
    expect(langFromAcceptLanguage('ru-RU,ru;q=0.9,en;q=0.8')).toBe('ru');
    expect(langFromAcceptLanguage('de-DE, en;q=0.5, ru;q=0.7')).toBe('ru');
    expect(langFromAcceptLanguage('ru;q=0, fr')).toBe('en');
  });

  it('thousands grouped, the decimal kept exact: 12,500.5 in English, 12 500,5 in Russian', () => {
    expect(groupDigits('12500.5', 'en')).toBe('12,500.5');
    expect(groupDigits('1234567', 'ru')).toBe('1\u00a0234\u00a0567');
    expect(groupDigits('12500.000001', 'ru')).toBe('12\u00a0500,000001');
    expect(groupDigits('999', 'en')).toBe('999');
  });
});
