import type { Executor } from '../platform/database/database.js';
import type { IdentitiesTable, Language, Theme } from '../platform/database/schema.js';
import type { ProfileRow } from './profile.js';

export async function findProfile(db: Executor, userId: string): Promise<ProfileRow | undefined> {
  return db
    .selectFrom('users')
    .select(['display_name as displayName', 'theme', 'language', 'created_at as createdAt', 'avatar_png as avatarPng'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Replaces the user's avatar; false when there is no such user. */
export async function storeAvatar(db: Executor, userId: string, png: Uint8Array): Promise<boolean> {
  const updated = await db.updateTable('users').set({ avatar_png: png }).where('id', '=', userId).returning('id').executeTakeFirst();
  return updated !== undefined;
}

/** Sets the fields given; the others keep their values. */
export async function updateProfile(
  db: Executor,
  userId: string,
  change: { displayName?: string; theme?: Theme; language?: Language },
): Promise<void> {
  const values = {
    ...(change.displayName === undefined ? {} : { display_name: change.displayName }),
    ...(change.theme === undefined ? {} : { theme: change.theme }),
    ...(change.language === undefined ? {} : { language: change.language }),
  };
  if (Object.keys(values).length === 0) return;
  await db.updateTable('users').set(values).where('id', '=', userId).execute();
}

export interface IdentityRow {
  readonly id: string;
  readonly provider: IdentitiesTable['provider'];
  readonly label: string;
}

/** The user's sign-in methods, oldest first. */
export async function listIdentities(db: Executor, userId: string): Promise<IdentityRow[]> {
  return db
    .selectFrom('identities')
    .select(['id', 'provider', 'label'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Removes the identity if it is the user's; false when it is not (or unknown). */
export async function deleteIdentity(db: Executor, userId: string, identityId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('identities').where((eb) => eb.and({ id: identityId, user_id: userId })).returning('id').executeTakeFirst();
  return deleted !== undefined;
}
