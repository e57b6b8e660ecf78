import { randomBytes } from 'node:crypto';
import { formatDecimal } from '../../money/index.js';
import type { PaymentRequest } from '../address-codec.js';
import { base58 } from '../base58.js';

/**
 * A fresh Solana Pay reference: 32 random bytes in base58, a public key no
 * one holds (decision 0039). Random, so it tells nothing about the issuance
 * or the deposit seed, and two issuances never share one.
 */
export function newPaymentReference(): string {
  return base58.encode(randomBytes(32));
}

/**
 * Longest label or message put in the request, in characters. Descriptions
 * have no limit in SPEC, but the request becomes a QR code: a long one would
 * not fit (or scan badly on a phone), and a wallet shows a line, not a page.
 */
export const SOLANA_PAY_TEXT_MAX = 60;

/** Control characters and line breaks: a wallet shows one line, and a stray escape must not reach it. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One clean line of at most SOLANA_PAY_TEXT_MAX characters (whole code points), undefined when nothing is left. */
export function solanaPayText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const line = value.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const characters = [...line];
  return characters.length <= SOLANA_PAY_TEXT_MAX ? line : `${characters.slice(0, SOLANA_PAY_TEXT_MAX - 1).join('').trimEnd()}…`;
}

/**
 * A Solana Pay transfer request (spec: github.com/solana-foundation/solana-pay,
 * "Transfer Request"): `solana:<recipient>?amount=&spl-token=&reference=&label=&message=`.
 * The recipient is the deposit key's wallet address: the wallet pays its
 * associated token account of `spl-token`. `amount` is decimal tokens, never
 * an exponent, without trailing zeros; absent when the payer chooses it
 * (deposits). Values are percent-encoded UTF-8 (`encodeURIComponent`), which
 * leaves nothing that could end the value or start another (`&`, `=`, `#`).
 */
export function solanaPayUri(request: PaymentRequest): string {
  const fields: [string, string][] = [];
  if (request.amount !== null) fields.push(['amount', formatDecimal(request.amount, request.tokenDecimals)]);
  fields.push(['spl-token', request.token]);
  if (request.reference !== undefined) fields.push(['reference', request.reference]);
  const label = solanaPayText(request.label);
  if (label !== undefined) fields.push(['label', label]);
  const message = solanaPayText(request.message);
  if (message !== undefined) fields.push(['message', message]);
  const query = fields.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  return `solana:${request.address}?${query}`;
}
