import type { Executor } from '../platform/database/database.js';
import { notify } from '../platform/database/notify.js';
import { API_KEYS_CHANNEL } from './api-key-cache.js';

/**
 * To be called in the transaction of every write that changes whether or how
 * a key resolves: the key itself (revoked, enabled, scopes, allowlist), or the
 * standing of its merchant (blocked, unblocked) or shop (archived). Every
 * process's `ApiKeyCache` is cleared at commit; this process's at once.
 * `subject` (a key or merchant id) is informative: listeners clear all.
 */
export async function noteApiKeysChanged(db: Executor, subject: string): Promise<void> {
  await notify(db, API_KEYS_CHANNEL, subject);
}
