import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { deleteUserPasskey } from './passkeys.repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * SPEC "Sign-in" DELETE /auth/passkeys/{id}. Only the user's own passkeys;
 * any other id is not_found. Removing a factor is a factor change: the route
 * asks for a fresh confirmation.
 */
export async function removePasskey(db: Executor, userId: string, passkeyId: string): Promise<void> {
  if (!UUID.test(passkeyId) || !(await deleteUserPasskey(db, userId, passkeyId))) throw new IvoryError('not_found');
}
