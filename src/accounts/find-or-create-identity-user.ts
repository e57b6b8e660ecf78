import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import type { IdentitiesTable } from '../platform/database/schema.js';
import { deleteUser, findIdentityOwner, insertIdentity, insertUser } from './accounts.repository.js';

/**
 * The user who signs in with this identity, created with it on first sign-in.
 * A concurrent first sign-in of the same identity is joined, not duplicated:
 * the loser's user row is removed inside its own transaction.
 */
export async function findOrCreateIdentityUser(
  trx: Tx,
  clock: Clock,
  identity: { readonly provider: IdentitiesTable['provider']; readonly subject: string; readonly label: string },
): Promise<string> {
  const existing = await findIdentityOwner(trx, identity.provider, identity.subject);
  if (existing !== undefined) return existing;

  const userId = newId();
  const now = clock.now();
  await insertUser(trx, { id: userId, createdAt: now });
  if (await insertIdentity(trx, { id: newId(), userId, ...identity, createdAt: now })) return userId;
  await deleteUser(trx, userId);
  const winner = await findIdentityOwner(trx, identity.provider, identity.subject);
  if (winner === undefined) throw new Error(`${identity.provider} identity conflicted but cannot be found`);
  return winner;
}
