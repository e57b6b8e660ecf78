import { IvoryError } from '../platform/errors.js';
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
  if (grouped && (body.chain_id !== undefined || body.token !== undefined)) throw new IvoryError('invalid_assets');
  const options = grouped ? parseAssets(body.assets ?? []) : [single(body)];

  let expiresAt: Date | null = null;
  if (kind === 'deposit') {
    if (body.expires_in !== undefined) throw new IvoryError('invalid_expires_in');
    if (body.amount !== undefined) throw new IvoryError('invalid_amount');
  } else {
    const days = EXPIRES_IN_DAYS[body.expires_in ?? DEFAULT_EXPIRES_IN];
    if (days === undefined || !Object.hasOwn(EXPIRES_IN_DAYS, body.expires_in ?? DEFAULT_EXPIRES_IN)) {
      throw new IvoryError('invalid_expires_in');
    }
    expiresAt = new Date(now.getTime() + days * DAY_MS);
    const pattern = grouped ? /^[0-9]+(\.[0-9]+)?$/ : /^(0|[1-9][0-9]*)$/;
    if (body.amount === undefined || body.amount.length > 100 || !pattern.test(body.amount)) throw new IvoryError('invalid_amount');
  }

  return {
    kind,
    grouped,
    options,
    amount: kind === 'deposit' ? null : (body.amount ?? null),
    expiresAt,
    externalId: optionalText(body.external_id, 'invalid_request'),
    description: optionalText(body.description, 'invalid_request'),
    returnUrl: returnUrl(body.return_url),
  };
}

function single(body: IssuanceRequestBody): RequestedOption {
  if (body.chain_id === undefined || body.token === undefined) throw new IvoryError('invalid_request');
  return { chainId: body.chain_id, token: body.token };
}

function parseAssets(assets: readonly { chain_id: number; token: string }[]): RequestedOption[] {
  if (assets.length === 0) throw new IvoryError('invalid_assets');
  const seen = new Set<string>();
  for (const asset of assets) {
    // Exact repeats here; pairs that differ only in EVM letter case are caught once resolved.
    const key = `${asset.chain_id}:${asset.token}`;
    if (seen.has(key)) throw new IvoryError('invalid_assets');
    seen.add(key);
  }
  return assets.map((asset) => ({ chainId: asset.chain_id, token: asset.token }));
}

function optionalText(value: string | undefined, code: 'invalid_request'): string | null {
  if (value === undefined) return null;
  if (value.length > TEXT_MAX || CONTROL_CHARACTERS.test(value)) throw new IvoryError(code);
  return value;
}

/** A navigation link only (SPEC "Checkout"): absolute http(s), nothing else. */
function returnUrl(value: string | undefined): string | null {
  if (value === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new IvoryError('invalid_request');
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || value.length > 2000) throw new IvoryError('invalid_request');
  return value;
}
