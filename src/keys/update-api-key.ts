import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { parseName, requireShopAccess } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import { apiKeyRecord, parseAllowedIps, parseScopes, type ApiKeyRecord } from './api-key.js';
import { lockLiveKey, updateKey } from './api-keys.repository.js';
import { noteApiKeysChanged } from './api-keys-changed.js';

export interface UpdateApiKeyInput {
  readonly name?: string;
  readonly enabled?: boolean;
  readonly scopes?: readonly string[];
  /** An empty array removes the restriction. */
  readonly allowedIps?: readonly string[];
}

/**
 * PATCH /shops/{id}/keys/{key_id}: omitted fields stay; the token is neither
 * shown nor rotated. A revoked or unknown key is 404 `not_found`.
 */
export async function updateApiKey(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  keyId: string,
  input: UpdateApiKeyInput,
): Promise<ApiKeyRecord> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner');
  const key = isUuid(keyId) ? await lockLiveKey(trx, shop.id, keyId) : undefined;
  if (key === undefined) throw new IvoryError('not_found');
  const changes = {
    ...(input.name === undefined ? {} : { name: parseName(input.name) }),
    ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    ...(input.scopes === undefined ? {} : { scopes: parseScopes(input.scopes) }),
    ...(input.allowedIps === undefined ? {} : { allowedIps: parseAllowedIps(input.allowedIps) }),
  };
  const updated = await updateKey(trx, key.id, changes, clock.now());
  await noteApiKeysChanged(trx, key.id);
  return apiKeyRecord(updated);
}
