import type { Clock } from '../platform/clock.js';
import { newId, newToken, sha256Hex } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { parseName, requireShopAccess } from '../merchants/index.js';
import { API_KEY_TOKEN_PREFIX, MAX_LIVE_KEYS_PER_SHOP, apiKeyRecord, parseAllowedIps, parseScopes, tokenPrefix, type ApiKeyRecord } from './api-key.js';
import { countLiveKeys, insertKey } from './api-keys.repository.js';

export interface CreateApiKeyInput {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly allowedIps?: readonly string[];
}

/**
 * POST /shops/{id}/keys (owner session: keys are administration, decision 0016). The token is returned
 * here once and stored only as its SHA-256. The shop row is locked before
 * counting, so concurrent creations cannot pass the limit of 10 live keys.
 */
export async function createApiKey(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  input: CreateApiKeyInput,
): Promise<ApiKeyRecord & { token: string }> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true });
  const name = parseName(input.name);
  const scopes = parseScopes(input.scopes);
  const allowedIps = parseAllowedIps(input.allowedIps ?? []);
  if ((await countLiveKeys(trx, shop.id)) >= MAX_LIVE_KEYS_PER_SHOP) throw new IvoryError('api_key_limit_reached');

  const token = newToken(API_KEY_TOKEN_PREFIX);
  const key = await insertKey(trx, {
    id: newId(),
    shopId: shop.id,
    merchantId: shop.merchant_id,
    name,
    tokenHash: sha256Hex(token),
    tokenPrefix: tokenPrefix(token),
    scopes,
    allowedIps,
    now: clock.now(),
  });
  return { ...apiKeyRecord(key), token };
}
