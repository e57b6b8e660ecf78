import type { Clock } from '../platform/clock.js';
import { newId, sha256Hex, type SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { newAuthorizationBinding, type IdentityProvider } from './identity-provider.js';
import { deleteExpiredOidcStates, insertOidcState } from './oidc-states.repository.js';
import { parseReturnTo } from './return-to.js';

/** Long enough to sign in at the provider (a password, a second factor there), short enough to go stale. */
export const OIDC_STATE_LIFETIME_MS = 10 * 60 * 1000;

export interface GoogleSignInDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly provider: IdentityProvider;
}

/**
 * SPEC "Sign-in" GET /auth/google: the provider's authorization URL for a
 * new request (authorization code with PKCE S256, state, nonce), and its
 * state for the browser to keep (the callback checks both), whose state,
 * nonce, sealed code verifier and `returnTo` wait server-side for the callback.
 * A `returnTo` that is not a same-origin path is refused (invalid_request).
 * Discovery happens before anything is written, so a provider that cannot be
 * reached leaves no row.
 */
export async function startGoogleSignIn(
  deps: GoogleSignInDeps,
  input: { readonly returnTo: string | undefined },
): Promise<{ readonly authorizationUrl: URL; readonly state: string }> {
  const returnTo = input.returnTo === undefined ? undefined : parseReturnTo(input.returnTo);
  if (input.returnTo !== undefined && returnTo === undefined) throw fieldError('invalid_request', 'return_to', 'must be a path on this site: one leading /, no spaces or backslashes');

  const binding = newAuthorizationBinding();
  const authorizationUrl = await deps.provider.authorizationUrl(binding);

  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    await deleteExpiredOidcStates(trx, now);
    await insertOidcState(trx, {
      id: newId(),
      stateDigest: sha256Hex(binding.state),
      nonce: binding.nonce,
      codeVerifierSealed: deps.secrets.seal(binding.codeVerifier),
      returnTo: returnTo ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + OIDC_STATE_LIFETIME_MS),
    });
  });
  return { authorizationUrl, state: binding.state };
}
