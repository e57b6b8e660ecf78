import { fieldError } from '../platform/errors.js';
import type { IssuanceKind } from './issuance.js';

/** The body of POST invoices / deposits, as the route schema lets it through. */
export interface IssuanceRequestBody {
  readonly chain_id?: number;
  readonly token?: string;
  readonly assets?: readonly { readonly chain_id: number; readonly token: string }[];
  readonly amount?: string;
  readonly external_id?: string;
  readonly expires_in?: string;
  readonly description?: string;
  readonly return_url?: string;
}

/** SPEC "Invoices and deposits": selectable invoice lifetimes; default 30d. */
export const EXPIRES_IN_DAYS: Readonly<Record<string, number>> = { '1d': 1, '7d': 7, '30d': 30, '180d': 180, '365d': 365 };
const DEFAULT_EXPIRES_IN = '30d';
const DAY_MS = 86_400_000;
const TEXT_MAX = 1000;
const AMOUNT_MAX_LENGTH = 100;
const RETURN_URL_MAX = 2000;
const RETURN_URL_RULE = 'must be an absolute http or https URL';
const CONTROL_CHARACTERS = /\p{Cc}/u;

export interface RequestedOption {
  readonly chainId: number;
  readonly token: string;
}

/** The request, checked for shape only (the catalogue and shop checks come next). */
export interface IssuanceRequest {
  readonly kind: IssuanceKind;
  readonly grouped: boolean;
  readonly options: readonly RequestedOption[];
  /** Base-unit integer string (single) or decimal token amount (group); null for deposits. */
  readonly amount: string | null;
  readonly expiresAt: Date | null;
  readonly externalId: string | null;
  readonly description: string | null;
  readonly returnUrl: string | null;
}

/**
 * SPEC Rules 1 and 3 and `expires_in`, before any lookup: `assets` with
 * chain_id or token, an empty list or a repeated pair is `invalid_assets`; a
 * lifetime outside the list, or any lifetime on a deposit, `invalid_expires_in`;
 * an amount that is not an integer string (single) or decimal string (group),
 * or any amount on a deposit, `invalid_amount`.
 */
export function parseIssuanceRequest(kind: IssuanceKind, body: IssuanceRequestBody, now: Date): IssuanceRequest {
  const grouped = body.assets !== undefined;
  if (grouped && (body.chain_id !== undefined || body.token !== undefined)) {
    throw fieldError('invalid_assets', 'assets', 'must not be sent together with chain_id or token');
  }
  const options = grouped ? parseAssets(body.assets ?? []) : [single(body)];

  let expiresAt: Date | null = null;
  if (kind === 'deposit') {
    if (body.expires_in !== undefined) throw fieldError('invalid_expires_in', 'expires_in', 'is not accepted on a deposit (deposits never expire)');
    if (body.amount !== undefined) throw fieldError('invalid_amount', 'amount', 'is not accepted on a deposit (deposits take any amount)');
  } else {
    const days = EXPIRES_IN_DAYS[body.expires_in ?? DEFAULT_EXPIRES_IN];
    if (days === undefined || !Object.hasOwn(EXPIRES_IN_DAYS, body.expires_in ?? DEFAULT_EXPIRES_IN)) {
      throw fieldError('invalid_expires_in', 'expires_in', `must be one of ${Object.keys(EXPIRES_IN_DAYS).join(', ')}`);
    }
    expiresAt = new Date(now.getTime() + days * DAY_MS);
    checkAmountText(body.amount, grouped);
  }

  return {
    kind,
    grouped,
    options,
    amount: kind === 'deposit' ? null : (body.amount ?? null),
    expiresAt,
    externalId: optionalText(body.external_id, 'external_id'),
    description: optionalText(body.description, 'description'),
    returnUrl: returnUrl(body.return_url),
  };
}

/** SPEC Rule 1: base units (an integer string) without assets; a decimal token amount with them. */
function checkAmountText(amount: string | undefined, grouped: boolean): void {
  if (amount === undefined) throw fieldError('invalid_amount', 'amount', 'required on an invoice');
  if (amount.length > AMOUNT_MAX_LENGTH) throw fieldError('invalid_amount', 'amount', `must be at most ${AMOUNT_MAX_LENGTH} characters`);
  if (grouped && !/^[0-9]+(\.[0-9]+)?$/.test(amount)) {
    throw fieldError('invalid_amount', 'amount', 'must be a decimal token amount such as "10.5" when assets are sent');
  }
  if (!grouped && !/^(0|[1-9][0-9]*)$/.test(amount)) {
    throw fieldError('invalid_amount', 'amount', 'must be a whole number of base units, without leading zeros (10 tokens of 6 decimals: "10000000")');
  }
}

function single(body: IssuanceRequestBody): RequestedOption {
  if (body.chain_id === undefined) throw fieldError('invalid_request', 'chain_id', 'required (or send assets)');
  if (body.token === undefined) throw fieldError('invalid_request', 'token', 'required (or send assets)');
  return { chainId: body.chain_id, token: body.token };
}

function parseAssets(assets: readonly { chain_id: number; token: string }[]): RequestedOption[] {
  if (assets.length === 0) throw fieldError('invalid_assets', 'assets', 'must list at least one {chain_id, token}');
  const seen = new Map<string, number>();
  assets.forEach((asset, index) => {
    // Exact repeats here; pairs that differ only in EVM letter case are caught once resolved.
    const key = `${asset.chain_id}:${asset.token}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw fieldError('invalid_assets', `assets[${index}]`, `repeats assets[${earlier}]`);
    seen.set(key, index);
  });
  return assets.map((asset) => ({ chainId: asset.chain_id, token: asset.token }));
}

function optionalText(value: string | undefined, field: string): string | null {
  if (value === undefined) return null;
  if (value.length > TEXT_MAX) throw fieldError('invalid_request', field, `must be at most ${TEXT_MAX} characters`);
  if (CONTROL_CHARACTERS.test(value)) throw fieldError('invalid_request', field, 'must not contain control characters');
  return value;
}

/** A navigation link only (SPEC "Checkout"): absolute http(s), nothing else. */
function returnUrl(value: string | undefined): string | null {
  if (value === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw fieldError('invalid_request', 'return_url', RETURN_URL_RULE);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw fieldError('invalid_request', 'return_url', RETURN_URL_RULE);
  if (value.length > RETURN_URL_MAX) throw fieldError('invalid_request', 'return_url', `must be at most ${RETURN_URL_MAX} characters`);
  return value;
}
