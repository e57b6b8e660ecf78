import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { lockUser } from './accounts.repository.js';
import { deleteIdentity, listIdentities } from './profile.repository.js';

/**
 * SPEC "Account" DELETE /identities/{id}. An id that is not one of the user's
 * identities (unknown, malformed, someone else's) is 400 not_found; the last
 * one is 400 last_login_method. The user row is locked, so two concurrent
 * unlinks cannot remove the last two methods together.
 */
export async function unlinkIdentity(db: Db, userId: string, identityId: string): Promise<void> {
  if (!isUuid(identityId)) throw new IvoryError('not_found');
  await inTransaction(db, async (trx) => {
    if ((await lockUser(trx, userId)) === undefined) throw new IvoryError('unauthorized');
    const identities = await listIdentities(trx, userId);
    if (!identities.some((identity) => identity.id === identityId)) throw new IvoryError('not_found');
    if (identities.length === 1) throw new IvoryError('last_login_method');
    if (!(await deleteIdentity(trx, userId, identityId))) throw new IvoryError('not_found');
  });
}
