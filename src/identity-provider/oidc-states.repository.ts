import type { Executor } from '../platform/database/database.js';

export interface OidcStateRow {
  readonly nonce: string;
  readonly codeVerifierSealed: string;
  readonly returnTo: string | null;
}

export async function insertOidcState(
  db: Executor,
  state: { id: string; stateDigest: string; nonce: string; codeVerifierSealed: string; returnTo: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('oidc_states')
    .values({
      id: state.id,
      state_digest: state.stateDigest,
      nonce: state.nonce,
      code_verifier_sealed: state.codeVerifierSealed,
      return_to: state.returnTo,
      created_at: state.createdAt,
      expires_at: state.expiresAt,
    })
    .execute();
}

/**
 * Deletes the state with this digest and returns it if it was unexpired at
 * `now`. Deleting is what makes a state single-use: of two concurrent
 * callbacks with the same state, only one gets the row back.
 */
export async function takeOidcState(db: Executor, stateDigest: string, now: Date): Promise<OidcStateRow | undefined> {
  const row = await db
    .deleteFrom('oidc_states')
    .where('state_digest', '=', stateDigest)
    .returning(['nonce', 'code_verifier_sealed', 'return_to', 'expires_at'])
    .executeTakeFirst();
  if (row === undefined || row.expires_at <= now) return undefined;
  return { nonce: row.nonce, codeVerifierSealed: row.code_verifier_sealed, returnTo: row.return_to };
}

/** Sign-ins abandoned at the provider leave rows behind; each start clears the expired ones. */
export async function deleteExpiredOidcStates(db: Executor, now: Date): Promise<void> {
  await db.deleteFrom('oidc_states').where('expires_at', '<=', now).execute();
}
