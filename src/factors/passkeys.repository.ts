import type { Executor } from '../platform/database/database.js';
import type { PasskeyPurpose } from './passkeys.js';

// ---- passkeys ----------------------------------------------------------------

export interface PasskeyRow {
  readonly id: string;
  readonly userId: string;
  /** base64url, as WebAuthn JSON carries it. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: string[];
  readonly name: string;
  readonly createdAt: Date;
}

function toPasskey(row: {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: string | number | bigint;
  transports: string;
  name: string;
  created_at: Date;
}): PasskeyRow {
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports === '' ? [] : row.transports.split(','),
    name: row.name,
    createdAt: row.created_at,
  };
}

/** The user's passkeys, oldest first. */
export async function listUserPasskeys(db: Executor, userId: string): Promise<PasskeyRow[]> {
  const rows = await db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toPasskey);
}

/** The user's passkey of this credential, under a row lock (its counter is about to be checked and raised). */
export async function lockUserPasskeyByCredential(db: Executor, userId: string, credentialId: string): Promise<PasskeyRow | undefined> {
  const row = await db
    .selectFrom('passkeys')
    .selectAll()
    .where((eb) => eb.and({ user_id: userId, credential_id: credentialId }))
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toPasskey(row);
}

/**
 * Stores a new passkey; false (nothing stored) when its credential is already
 * registered, to this user or another: the unique key decides, so two
 * concurrent registrations of one credential cannot both succeed.
 */
export async function insertPasskey(db: Executor, passkey: PasskeyRow): Promise<boolean> {
  const inserted = await db
    .insertInto('passkeys')
    .values({
      id: passkey.id,
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: String(passkey.counter),
      transports: passkey.transports.join(','),
      name: passkey.name,
      created_at: passkey.createdAt,
    })
    .onConflict((conflict) => conflict.column('credential_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function recordPasskeyUse(db: Executor, passkeyId: string, counter: number, at: Date): Promise<void> {
  await db.updateTable('passkeys').set({ counter: String(counter), last_used_at: at }).where('id', '=', passkeyId).execute();
}

/** Renames the user's own passkey; undefined when the user has none of that id. */
export async function renameUserPasskey(db: Executor, userId: string, passkeyId: string, name: string): Promise<PasskeyRow | undefined> {
  const row = await db
    .updateTable('passkeys')
    .set({ name })
    .where((eb) => eb.and({ id: passkeyId, user_id: userId }))
    .returningAll()
    .executeTakeFirst();
  return row === undefined ? undefined : toPasskey(row);
}

/** Deletes the user's own passkey; false when the user has none of that id. */
export async function deleteUserPasskey(db: Executor, userId: string, passkeyId: string): Promise<boolean> {
  const row = await db.deleteFrom('passkeys').where((eb) => eb.and({ id: passkeyId, user_id: userId })).returning('id').executeTakeFirst();
  return row !== undefined;
}

// ---- begun ceremonies ----------------------------------------------------------

export interface PasskeyChallengeRow {
  readonly id: string;
  readonly sessionId: string;
  readonly userId: string;
  readonly purpose: PasskeyPurpose;
  /** base64url, as in the options and the client data. */
  readonly challenge: string;
  readonly name: string | null;
  readonly expiresAt: Date;
}

export async function insertPasskeyChallenge(db: Executor, challenge: PasskeyChallengeRow, at: Date): Promise<void> {
  await db
    .insertInto('passkey_challenges')
    .values({
      id: challenge.id,
      session_id: challenge.sessionId,
      user_id: challenge.userId,
      purpose: challenge.purpose,
      challenge: challenge.challenge,
      name: challenge.name,
      created_at: at,
      expires_at: challenge.expiresAt,
    })
    .execute();
}

/**
 * Takes (deletes and returns) the session's ceremony of this id, expired or
 * not: a challenge is used once, whatever the outcome of its finish. Another
 * session's ceremony is neither returned nor touched.
 */
export async function takePasskeyChallenge(db: Executor, challengeId: string, sessionId: string): Promise<PasskeyChallengeRow | undefined> {
  const row = await db
    .deleteFrom('passkey_challenges')
    .where((eb) => eb.and({ id: challengeId, session_id: sessionId }))
    .returningAll()
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        id: row.id,
        sessionId: row.session_id,
        userId: row.user_id,
        purpose: row.purpose,
        challenge: row.challenge,
        name: row.name,
        expiresAt: row.expires_at,
      };
}

/** Forgets ceremonies that can no longer be finished. */
export async function deleteExpiredPasskeyChallenges(db: Executor, now: Date): Promise<void> {
  await db.deleteFrom('passkey_challenges').where('expires_at', '<=', now).execute();
}

/** The user's display name, for the authenticator's account list; empty when unset. */
export async function findUserDisplayName(db: Executor, userId: string): Promise<string> {
  const row = await db.selectFrom('users').select('display_name').where('id', '=', userId).executeTakeFirst();
  return row?.display_name ?? '';
}
