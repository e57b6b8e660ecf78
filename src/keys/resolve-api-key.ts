import ipaddr from 'ipaddr.js';
import type { Clock } from '../platform/clock.js';
import { sha256Hex } from '../platform/crypto.js';
import type { Executor } from '../platform/database/database.js';
import type { ApiKeyPrincipal } from '../platform/http/principal.js';
import type { ApiKeyCache } from './api-key-cache.js';
import { findActiveKeyByHash, touchKeyLastUsed } from './api-keys.lookup.repository.js';

/** `last_used_at` is advisory: one write a minute per key spares the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The principal of an `ivk_` token, or null when the key is unknown, disabled,
 * revoked, its merchant blocked, its shop archived, or `clientIp` is outside
 * its allowlist (SPEC "Authentication" 3: such a request is unauthorized).
 */
export async function resolveApiKey(
  deps: { readonly db: Executor; readonly clock: Clock; readonly cache?: ApiKeyCache },
  token: string,
  clientIp: string,
): Promise<ApiKeyPrincipal | null> {
  const tokenHash = sha256Hex(token);
  let key = deps.cache?.get(tokenHash);
  if (key === undefined) {
    const generation = deps.cache?.generation ?? 0;
    key = await findActiveKeyByHash(deps.db, tokenHash);
    if (key !== undefined) deps.cache?.set(tokenHash, key, generation);
  }
  if (key === undefined || !ipAllowed(key.allowedIps, clientIp)) return null;

  const now = deps.clock.now();
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (key.lastUsedAt === null || key.lastUsedAt < staleBefore) {
    await touchKeyLastUsed(deps.db, key.id, now, staleBefore);
    deps.cache?.noteUsed(tokenHash, now);
  }
  return { kind: 'api_key', keyId: key.id, shopId: key.shopId, merchantId: key.merchantId, scopes: key.scopes };
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An empty allowlist allows every address. Entries are addresses or CIDR
 * ranges of either family; an IPv4-mapped IPv6 client (`::ffff:1.2.3.4`, what
 * a dual-stack listener reports) is compared as the IPv4 address it carries,
 * and so is a mapped entry. An unreadable client address or entry matches
 * nothing: the check fails closed.
 */
export function ipAllowed(allowedIps: readonly string[], clientIp: string): boolean {
  if (allowedIps.length === 0) return true;
  let client: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    client = ipaddr.process(clientIp);
  } catch {
    return false;
  }
  return allowedIps.some((entry) => {
    const range = parseEntry(entry);
    return range !== undefined && range[0].kind() === client.kind() && client.match(range);
  });
}

function parseEntry(entry: string): Range | undefined {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return unmapped(address, bits);
    }
    const address = ipaddr.parse(entry);
    return unmapped(address, address.kind() === 'ipv4' ? 32 : 128);
  } catch {
    return undefined;
  }
}

function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): Range {
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) {
    return [address.toIPv4Address(), bits - 96];
  }
  return [address, bits];
}
