import type { PaymentRequired, PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { getAddress, isAddress, isHex, type Address, type Hex } from 'viem';
import type { Eip712Domain } from '../catalogue/index.js';
import { parseDecimalAmount, pow10 } from '../money/index.js';
import type { X402Invoice } from './x402.repository.js';

/**
 * The x402 model (docs/decisions/0035): which invoices are offered, what they ask for, and the
 * gas cap. Pure: no I/O.
 */

export const X402_VERSION = 2;
/** How long the payer's authorisation should stay valid (the exact client's `validBefore` = now + this). */
export const MAX_TIMEOUT_SECONDS = 300;

/** Why an invoice is not offered, or no longer payable: each answered with its own status by the route. */
export type X402Refusal =
  /** No issuance has this public id. */
  | { readonly code: 'not_found' }
  /** Never payable with x402 here: a deposit, a group, a sandbox invoice, a network or token without it. */
  | { readonly code: 'x402_unavailable'; readonly reason: 'deposit' | 'group' | 'sandbox' | 'network' | 'token' }
  /** Not (or no longer) open: registering, funded, settled, reconciling, cancelled or expired. */
  | { readonly code: 'invoice_not_open'; readonly status: string }
  /** What is owed is already on its way in an x402 settlement not yet credited. */
  | { readonly code: 'settlement_pending' };

/** What the catalogue says of the invoice's network and token, for x402. */
export interface X402Terms {
  /** The network is live on this deployment and is an EVM network (x402 `exact` is defined for eip155 here). */
  readonly liveEvm: boolean;
  /** Catalogue `x402_native_price`: whole tokens one native coin is worth at most. */
  readonly nativePrice: string | undefined;
  /** Catalogue token `eip712`: present when the token implements EIP-3009. */
  readonly eip712: Eip712Domain | undefined;
}

/** The first reason the invoice is not offered at all (before its state is looked at). */
export function unavailability(invoice: X402Invoice, terms: X402Terms): X402Refusal | undefined {
  if (invoice.kind !== 'invoice') return { code: 'x402_unavailable', reason: 'deposit' };
  if (invoice.inGroup) return { code: 'x402_unavailable', reason: 'group' };
  if (invoice.sandbox) return { code: 'x402_unavailable', reason: 'sandbox' };
  if (!terms.liveEvm || terms.nativePrice === undefined) return { code: 'x402_unavailable', reason: 'network' };
  if (terms.eip712 === undefined) return { code: 'x402_unavailable', reason: 'token' };
  return undefined;
}

/**
 * What is still owed: the amount less `received` less what x402 settlements already bring.
 * A refusal when the invoice is not open (cancelled and expired included: a cancelled invoice is
 * never shown as payable again, LEDGER "Cancellation and expiry") or nothing is owed.
 */
export function amountOwed(invoice: X402Invoice, inFlight: bigint, now: Date): bigint | X402Refusal {
  const expired = invoice.expiresAt !== null && invoice.expiresAt.getTime() <= now.getTime();
  if (invoice.status !== 'open' || invoice.cancelledAt !== null || expired || invoice.address === null || invoice.amount === null) {
    return { code: 'invoice_not_open', status: invoice.cancelledAt !== null || expired ? 'cancelled' : invoice.status };
  }
  const owed = invoice.amount - invoice.received - inFlight;
  if (owed <= 0n) return inFlight > 0n ? { code: 'settlement_pending' } : { code: 'invoice_not_open', status: invoice.status };
  return owed;
}

/** The one payment option offered: `exact` on `eip155:<chainId>`, to the invoice's forwarder, the amount owed. */
export function paymentRequirements(invoice: X402Invoice, eip712: Eip712Domain, owed: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: `eip155:${invoice.chainId}`,
    asset: getAddress(invoice.token),
    amount: owed.toString(),
    payTo: getAddress(invoice.address ?? ''),
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: eip712.name, version: eip712.version },
  };
}

export function paymentRequired(resource: ResourceInfo, accepts: readonly PaymentRequirements[], error?: string): PaymentRequired {
  return { x402Version: X402_VERSION, ...(error === undefined ? {} : { error }), resource, accepts: [...accepts] };
}

/**
 * The most the relayer may spend on gas to settle one authorisation, in wei: the invoice's fee
 * `fee(A)` (what the operator earns on it, in token base units) valued in native coin at the
 * operator's stated ceiling price: fee × 10^18 / (price × 10^decimals), rounded down.
 */
export function gasCapWei(fee: bigint, tokenDecimals: number, nativePrice: string): bigint {
  const PRICE_DECIMALS = 36;
  const price = parseDecimalAmount(nativePrice, PRICE_DECIMALS);
  if (price === undefined || price === 0n) return 0n;
  return (fee * pow10(18) * pow10(PRICE_DECIMALS)) / (price * pow10(tokenDecimals));
}

/** An EIP-3009 authorisation as the `exact` client sends it, checked field by field. */
export interface Authorization {
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: Hex;
  readonly signature: Hex;
}

const UINT = /^(0|[1-9][0-9]{0,77})$/;

/** The EIP-3009 payload of an `exact` payment, or undefined when any field is malformed. */
export function readAuthorization(payload: Record<string, unknown>): Authorization | undefined {
  const { signature, authorization } = payload;
  if (typeof signature !== 'string' || !isHex(signature) || typeof authorization !== 'object' || authorization === null) return undefined;
  const fields = authorization as Record<string, unknown>;
  const { from, to, value, validAfter, validBefore, nonce } = fields;
  if (typeof from !== 'string' || !isAddress(from, { strict: false }) || typeof to !== 'string' || !isAddress(to, { strict: false })) return undefined;
  for (const number of [value, validAfter, validBefore]) if (typeof number !== 'string' || !UINT.test(number)) return undefined;
  if (typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return undefined;
  return {
    from: getAddress(from),
    to: getAddress(to),
    value: BigInt(value as string),
    validAfter: BigInt(validAfter as string),
    validBefore: BigInt(validBefore as string),
    nonce: nonce.toLowerCase() as Hex,
    signature,
  };
}
