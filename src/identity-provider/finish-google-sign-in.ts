import type { Clock } from '../platform/clock.js';
import { constantTimeEqual, newId, sha256Hex } from '../platform/crypto.js';
import { inTransaction, type Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { takeOidcState } from './oidc-states.repository.js';
import {
  findIdentityOwner,
  findOrCreateIdentityUser,
  findUser,
  insertIdentity,
  isDisposableDomain,
  parseEmailAddress,
  sessionUserView,
  startSession,
  type EmailAddress,
  type SessionUserView,
} from '../accounts/index.js';
import type { GoogleSignInDeps } from './start-google-sign-in.js';

export interface GoogleSession {
  readonly token: string;
  readonly expiresAt: Date;
  readonly csrf: string;
  readonly user: SessionUserView;
  /** The same-origin path given to GET /auth/google, if any. */
  readonly returnTo: string | undefined;
}

/**
 * SPEC "Sign-in" GET /auth/google/callback. The state must be the one the
 * browser was given when it started (`browserState`, from its cookie), so a
 * callback URL made by someone else's sign-in cannot log this browser in to
 * their account; a mismatch touches nothing. The state is then taken (deleted)
 * by the first callback that presents it, whatever happens next, so it cannot
 * be replayed. Refusals: a missing, unknown, expired, used or foreign state,
 * a provider error or an answer that fails openid-client's checks (unauthorized); no
 * verified e-mail in the ID token (email_required); a malformed one
 * (invalid_email); a disposable one for a new account (disposable_email).
 * Users, identities and sessions are written only on success, in one
 * transaction opened after the provider has answered (never across the call).
 *
 * Who signs in: the user of the provider identity (`google`, `sub`); else
 * the user whose e-mail identity is the verified address, the provider
 * identity linked to them; else a new user with both identities, so that a
 * later e-mail code sign-in with the same address reaches the same account.
 */
export async function finishGoogleSignIn(
  deps: GoogleSignInDeps,
  input: { readonly callbackUrl: URL; readonly state: string | undefined; readonly browserState: string | undefined },
): Promise<GoogleSession> {
  if (input.state === undefined || input.state === '' || input.browserState === undefined) throw new IvoryError('unauthorized');
  if (!constantTimeEqual(input.state, input.browserState)) throw new IvoryError('unauthorized');
  const state = input.state;
  const pending = await inTransaction(deps.db, (trx) => takeOidcState(trx, sha256Hex(state), deps.clock.now()));
  if (pending === undefined) throw new IvoryError('unauthorized');

  const identity = await deps.provider.redeem(input.callbackUrl, {
    state,
    nonce: pending.nonce,
    codeVerifier: deps.secrets.open(pending.codeVerifierSealed),
  });
  if (identity === undefined) throw new IvoryError('unauthorized');
  if (identity.email === undefined || !identity.emailVerified) throw new IvoryError('email_required');
  const email = parseEmailAddress(identity.email);
  if (email === undefined) throw new IvoryError('invalid_email');

  return inTransaction(deps.db, async (trx) => {
    const userId = await userOfGoogleIdentity(trx, deps.clock, identity.subject, email);
    const session = await startSession(trx, deps.clock, userId, 'google');
    const user = await findUser(trx, userId);
    if (user === undefined) throw new Error(`user ${userId} vanished while signing in`);
    return {
      token: session.token,
      expiresAt: session.expiresAt,
      csrf: session.csrfToken,
      user: sessionUserView(user, null),
      returnTo: pending.returnTo ?? undefined,
    };
  });
}

async function userOfGoogleIdentity(trx: Tx, clock: Clock, subject: string, email: EmailAddress): Promise<string> {
  const linked = await findIdentityOwner(trx, 'google', subject);
  if (linked !== undefined) return linked;

  const now = clock.now();
  const owner = await findIdentityOwner(trx, 'email', email.subject);
  if (owner !== undefined) {
    if (await insertIdentity(trx, { id: newId(), userId: owner, provider: 'google', subject, label: email.address, createdAt: now })) return owner;
    // A concurrent callback of the same provider account linked it first: sign in where it went.
    const winner = await findIdentityOwner(trx, 'google', subject);
    if (winner === undefined) throw new Error('google identity conflicted but cannot be found');
    return winner;
  }

  // SPEC "Errors": disposable domains are refused for addresses with no account yet.
  if (isDisposableDomain(email.domain)) throw new IvoryError('disposable_email');
  const userId = await findOrCreateIdentityUser(trx, clock, { provider: 'google', subject, label: email.address });
  // Lost to a concurrent e-mail sign-in of the same address: the address stays theirs.
  await insertIdentity(trx, { id: newId(), userId, provider: 'email', subject: email.subject, label: email.address, createdAt: now });
  return userId;
}
