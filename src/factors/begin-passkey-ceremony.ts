import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import { meetsMfaRequirement, type SessionPrincipal } from '../platform/http/principal.js';
import {
  deleteExpiredPasskeyChallenges,
  findUserDisplayName,
  insertPasskeyChallenge,
  listUserPasskeys,
} from './passkeys.repository.js';
import { DEFAULT_PASSKEY_NAME, PASSKEY_CHALLENGE_TTL_MS, PASSKEY_NAME_RULE, normalizePasskeyName, relyingPartyOf, webAuthn, type PasskeyPurpose } from './passkeys.js';

export interface BeginPasskeyCeremonyDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly publicUrl: string;
  readonly brand: string;
  readonly mfaFreshWindowMs: number;
}

export interface BegunPasskeyCeremony {
  readonly id: string;
  readonly expiresAt: Date;
  /** For navigator.credentials.create (register) or .get (authenticate). */
  readonly options: PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON;
}

/**
 * SPEC "Sign-in" POST /auth/passkeys/begin. `register`: options for a new
 * passkey of the session's user (its existing ones excluded); adding a factor
 * is a factor change, so a user who already has a second factor needs a
 * fresh confirmation (mfa_required). `authenticate`: options allowing exactly
 * the user's passkeys (invalid_state when there are none). The challenge is
 * kept server-side, bound to this session, for PASSKEY_CHALLENGE_TTL_MS.
 * Refusals: invalid_name, invalid_request (a name given to authenticate),
 * mfa_required, invalid_state.
 */
export async function beginPasskeyCeremony(
  deps: BeginPasskeyCeremonyDeps,
  input: { readonly session: SessionPrincipal; readonly purpose: PasskeyPurpose; readonly name?: string },
): Promise<BegunPasskeyCeremony> {
  const { session, purpose } = input;
  const now = deps.clock.now();
  let name: string | null = null;
  if (purpose === 'register') {
    name = input.name === undefined ? DEFAULT_PASSKEY_NAME : normalizePasskeyName(input.name);
    if (name === null) throw fieldError('invalid_name', 'name', PASSKEY_NAME_RULE);
    if (!meetsMfaRequirement(session, 'fresh', now, deps.mfaFreshWindowMs)) throw new IvoryError('mfa_required');
  } else if (input.name !== undefined) {
    throw fieldError('invalid_request', 'name', 'is accepted only with purpose register');
  }

  const { rpId } = relyingPartyOf(deps.publicUrl);
  const expiresAt = new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS);
  const { generateAuthenticationOptions, generateRegistrationOptions } = await webAuthn();
  return inTransaction(deps.db, async (trx) => {
    const passkeys = await listUserPasskeys(trx, session.userId);
    const credentials = passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports }));
    let options: PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON;
    if (purpose === 'register') {
      const displayName = await findUserDisplayName(trx, session.userId);
      options = await generateRegistrationOptions({
        rpName: deps.brand,
        rpID: rpId,
        userID: uuidBytes(session.userId),
        userName: displayName === '' ? `${deps.brand} ${session.userId.slice(0, 8)}` : displayName,
        userDisplayName: displayName,
        timeout: PASSKEY_CHALLENGE_TTL_MS,
        attestationType: 'none',
        excludeCredentials: credentials,
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      });
    } else {
      if (passkeys.length === 0) throw new IvoryError('invalid_state');
      options = await generateAuthenticationOptions({
        rpID: rpId,
        allowCredentials: credentials,
        timeout: PASSKEY_CHALLENGE_TTL_MS,
        userVerification: 'preferred',
      });
    }
    await deleteExpiredPasskeyChallenges(trx, now);
    const id = newId();
    await insertPasskeyChallenge(
      trx,
      { id, sessionId: session.sessionId, userId: session.userId, purpose, challenge: options.challenge, name, expiresAt },
      now,
    );
    return { id, expiresAt, options };
  });
}

/** A UUID's 16 bytes: the WebAuthn user handle (never personal data). */
function uuidBytes(uuid: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(uuid.replace(/-/g, ''), 'hex'));
}
