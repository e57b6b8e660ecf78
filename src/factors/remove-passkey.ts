import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { deleteUserPasskey } from './passkeys.repository.js';

/**
 * SPEC "Sign-in" DELETE /auth/passkeys/{id}. Only the user's own passkeys;
 * any other id is not_found. Removing a factor is a factor change: the route
 * asks for a fresh confirmation.
 */
export async function removePasskey(db: Executor, userId: string, passkeyId: string): Promise<void> {
  if (!isUuid(passkeyId) || !(await deleteUserPasskey(db, userId, passkeyId))) throw new IvoryError('not_found');
}
