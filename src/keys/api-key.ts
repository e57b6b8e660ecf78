import ipaddr from 'ipaddr.js';
import type { Scope } from '../platform/database/schema.js';
import { fieldError } from '../platform/errors.js';
import type { ApiKeyRow } from './api-keys.repository.js';

/** SPEC "Limits". */
export const MAX_LIVE_KEYS_PER_SHOP = 10;
export const MAX_ALLOWED_IPS = 10;
export const API_KEY_TOKEN_PREFIX = 'ivk_';
/** Enough of the token to recognise a key in a list (`ivk_` + 8), far too little to guess the rest. */
const SHOWN_PREFIX_LENGTH = 12;

const SCOPES: readonly Scope[] = ['read', 'write'];

/** SPEC "API key": a non-empty set of `read` and/or `write`, each at most once. */
export function parseScopes(raw: readonly string[]): Scope[] {
  if (raw.length === 0) throw fieldError('invalid_scopes', 'scopes', 'must not be empty: read and/or write');
  raw.forEach((scope, index) => {
    if (!(SCOPES as readonly string[]).includes(scope)) throw fieldError('invalid_scopes', `scopes[${index}]`, `must be one of ${SCOPES.join(', ')}`);
    const earlier = raw.indexOf(scope);
    if (earlier !== index) throw fieldError('invalid_scopes', `scopes[${index}]`, `repeats scopes[${earlier}]`);
  });
  return [...raw] as Scope[];
}

/**
 * SPEC "API key": IPv4/IPv6 addresses or CIDR ranges, at most 10 (counted as
 * sent); empty means no restriction. Stored normalised — RFC 5952 text for
 * IPv6, the network address for a range (`10.1.2.3/8` → `10.0.0.0/8`), an
 * IPv4-mapped single address as plain IPv4 — and without duplicates. IPv4 must
 * be four decimal parts (no `127.1`, no octal or hex forms); IPv6 zone ids are
 * refused, since they mean nothing off the host.
 */
export function parseAllowedIps(raw: readonly string[]): string[] {
  if (raw.length > MAX_ALLOWED_IPS) {
    throw fieldError('too_many_allowed_ips', 'allowed_ips', `must have at most ${MAX_ALLOWED_IPS} addresses or CIDR ranges (${raw.length} sent)`);
  }
  const normalised = raw.map((entry, index) => {
    const text = normaliseEntry(entry);
    if (text === undefined) {
      throw fieldError('invalid_allowed_ips', `allowed_ips[${index}]`, 'must be an IPv4 address (four decimal parts), an IPv6 address without zone id, or a CIDR range of either');
    }
    return text;
  });
  return [...new Set(normalised)];
}

function normaliseEntry(entry: string): string | undefined {
  if (entry.includes('%')) return undefined;
  if (entry.includes('/')) {
    if (ipaddr.IPv4.isValidCIDRFourPartDecimal(entry)) {
      const [, bits] = ipaddr.IPv4.parseCIDR(entry);
      return `${ipaddr.IPv4.networkAddressFromCIDR(entry).toString()}/${bits}`;
    }
    if (ipaddr.IPv6.isValidCIDR(entry)) {
      const [, bits] = ipaddr.IPv6.parseCIDR(entry);
      return `${ipaddr.IPv6.networkAddressFromCIDR(entry).toString()}/${bits}`;
    }
    return undefined;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(entry)) return ipaddr.IPv4.parse(entry).toString();
  if (ipaddr.IPv6.isValid(entry)) {
    const address = ipaddr.IPv6.parse(entry);
    return address.isIPv4MappedAddress() ? address.toIPv4Address().toString() : address.toString();
  }
  return undefined;
}

export function tokenPrefix(token: string): string {
  return token.slice(0, SHOWN_PREFIX_LENGTH);
}

/** The key record of every key response; the token itself appears only once, at creation. */
export interface ApiKeyRecord {
  id: string;
  shop_id: string;
  name: string;
  scopes: Scope[];
  allowed_ips: string[];
  enabled: boolean;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export function apiKeyRecord(key: ApiKeyRow): ApiKeyRecord {
  return {
    id: key.id,
    shop_id: key.shop_id,
    name: key.name,
    scopes: key.scopes,
    allowed_ips: key.allowed_ips,
    enabled: key.enabled,
    token_prefix: key.token_prefix,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at === null ? null : key.last_used_at.toISOString(),
  };
}
