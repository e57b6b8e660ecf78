import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import { inTransaction, type Db, type Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import type { SessionPrincipal } from '../platform/http/principal.js';
import { findUser } from '../accounts/index.js';
import { markSessionMfaPassed } from './mfa.repository.js';
import {
  insertPasskey,
  lockUserPasskeyByCredential,
  recordPasskeyUse,
  takePasskeyChallenge,
  type PasskeyChallengeRow,
} from './passkeys.repository.js';
import { keptTransports, passkeyView, relyingPartyOf, webAuthn, type PasskeyView, type RelyingParty } from './passkeys.js';
import { sessionUserView, type SessionUserView } from '../accounts/index.js';

export interface FinishPasskeyCeremonyDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly publicUrl: string;
}

export interface FinishedPasskeyCeremony {
  /** The passkey registered, or the one that authenticated. */
  readonly passkey: PasskeyView;
  readonly user: SessionUserView;
}

type Outcome =
  | { readonly kind: 'finished'; readonly passkey: PasskeyView }
  | { readonly kind: 'passkey_challenge_invalid' | 'invalid_passkey' };

/**
 * SPEC "Sign-in" POST /auth/passkeys/finish/{id}. The ceremony is taken
 * first (deleted, so it is used once whatever happens next; another session's
 * is not found), then the authenticator's answer is verified against its
 * challenge, PUBLIC_URL's origin and RP id:
 * - `register`: the attestation ("none" or any format the library verifies)
 *   gives a new credential, stored with its public key and counter; a
 *   credential already registered (by anyone) is refused.
 * - `authenticate`: the assertion must be signed by one of the user's passkeys
 *   with a counter above the stored one (unless the authenticator keeps none);
 *   the counter is raised.
 * Either way the session has now passed its second factor (`mfa_at` = now):
 * a new passkey proves possession of the factor just added.
 * Refusals: passkey_challenge_invalid (unknown, expired, used, another
 * session's), invalid_passkey (anything in the answer refused); nothing is
 * stored but the ceremony's removal.
 */
export async function finishPasskeyCeremony(
  deps: FinishPasskeyCeremonyDeps,
  input: { readonly session: SessionPrincipal; readonly ceremonyId: string; readonly response: Record<string, unknown> },
): Promise<FinishedPasskeyCeremony> {
  const { session } = input;
  const relyingParty = relyingPartyOf(deps.publicUrl);
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const now = deps.clock.now();
    const ceremony = isUuid(input.ceremonyId) ? await takePasskeyChallenge(trx, input.ceremonyId, session.sessionId) : undefined;
    if (ceremony === undefined || ceremony.expiresAt.getTime() <= now.getTime()) return { kind: 'passkey_challenge_invalid' };
    const finish = ceremony.purpose === 'register' ? register : authenticate;
    const passkey = await finish(trx, ceremony, input.response, relyingParty, now);
    if (passkey === null) return { kind: 'invalid_passkey' };
    await markSessionMfaPassed(trx, session.sessionId, now);
    return { kind: 'finished', passkey };
  });
  if (outcome.kind !== 'finished') throw new IvoryError(outcome.kind);

  const user = await findUser(deps.db, session.userId);
  if (user === undefined) throw new Error(`session ${session.sessionId} has no user`);
  return { passkey: outcome.passkey, user: sessionUserView(user, deps.clock.now()) };
}

/** One finish step (register or authenticate): the passkey, or null when the answer is refused. */
type FinishStep = (
  trx: Executor,
  ceremony: PasskeyChallengeRow,
  response: Record<string, unknown>,
  relyingParty: RelyingParty,
  now: Date,
) => Promise<PasskeyView | null>;

/** What both verifications hold the answer to: the ceremony's challenge, PUBLIC_URL's origin and RP id. */
function expectations(ceremony: PasskeyChallengeRow, relyingParty: RelyingParty) {
  return {
    expectedChallenge: ceremony.challenge,
    expectedOrigin: relyingParty.origin,
    expectedRPID: relyingParty.rpId,
    // A second factor is possession; user verification is asked for ("preferred"), not required.
    requireUserVerification: false,
  };
}

/** The stored passkey, or null when the attestation is refused. */
const register: FinishStep = async (trx, ceremony, response, relyingParty, now) => {
  const { verifyRegistrationResponse } = await webAuthn();
  const verification = await refusedAsNull(() =>
    verifyRegistrationResponse({ response: response as unknown as RegistrationResponseJSON, ...expectations(ceremony, relyingParty) }),
  );
  if (verification === null || !verification.verified) return null;
  const { credential } = verification.registrationInfo;
  const passkey = {
    id: newId(),
    userId: ceremony.userId,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: keptTransports(credential.transports),
    name: ceremony.name ?? '',
    createdAt: now,
  };
  if (!(await insertPasskey(trx, passkey))) return null;
  return passkeyView(passkey);
};

/** The passkey that signed, or null when the assertion is refused. */
const authenticate: FinishStep = async (trx, ceremony, response, relyingParty, now) => {
  if (typeof response.id !== 'string') return null;
  const passkey = await lockUserPasskeyByCredential(trx, ceremony.userId, response.id);
  if (passkey === undefined) return null;
  const { verifyAuthenticationResponse } = await webAuthn();
  const verification = await refusedAsNull(() =>
    verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      ...expectations(ceremony, relyingParty),
      credential: {
        id: passkey.credentialId,
        publicKey: Uint8Array.from(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports,
      },
    }),
  );
  // The library refuses a counter that did not rise (a cloned authenticator) by throwing.
  if (verification === null || !verification.verified) return null;
  await recordPasskeyUse(trx, passkey.id, verification.authenticationInfo.newCounter, now);
  return passkeyView(passkey);
};

/**
 * The library throws for every refusal (bad origin, challenge, signature,
 * counter, malformed CBOR or base64): all are one expected outcome here.
 */
async function refusedAsNull<T>(verify: () => Promise<T>): Promise<T | null> {
  try {
    return await verify();
  } catch {
    return null;
  }
}
