import type { Executor } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { renameUserPasskey } from './passkeys.repository.js';
import { PASSKEY_NAME_RULE, normalizePasskeyName, passkeyView, type PasskeyView } from './passkeys.js';

/**
 * SPEC "Sign-in" PATCH /auth/passkeys/{id}. Only the user's own passkeys: any
 * other id (unknown, malformed, another user's) is not_found, so ids of
 * others cannot be probed. Refusals: invalid_name, not_found.
 */
export async function renamePasskey(db: Executor, userId: string, input: { readonly passkeyId: string; readonly name: string }): Promise<PasskeyView> {
  const name = normalizePasskeyName(input.name);
  if (name === null) throw fieldError('invalid_name', 'name', PASSKEY_NAME_RULE);
  if (!isUuid(input.passkeyId)) throw new IvoryError('not_found');
  const renamed = await renameUserPasskey(db, userId, input.passkeyId, name);
  if (renamed === undefined) throw new IvoryError('not_found');
  return passkeyView(renamed);
}
