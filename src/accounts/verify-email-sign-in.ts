import { constantTimeEqual } from '../platform/crypto.js';
import { inTransaction } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';
import { findUser } from './accounts.repository.js';
import { EMAIL_CODE_MAX_ATTEMPTS, emailCodeDigest, isEmailCodeShape } from './email-code.js';
import { consumeEmailChallenge, countWrongEmailCode, lockEmailChallenge } from './email-challenges.repository.js';
import { findOrCreateIdentityUser } from './find-or-create-identity-user.js';
import { sessionUserView, type SessionUserView } from './session.js';
import { startSession } from './start-session.js';
import type { EmailSignInDeps } from './start-email-sign-in.js';

export interface EmailSession {
  readonly token: string;
  readonly expiresAt: Date;
  readonly csrf: string;
  readonly user: SessionUserView;
}

type Outcome = { readonly kind: 'refused' } | { readonly kind: 'signed_in'; readonly session: EmailSession };

/**
 * SPEC "Sign-in" POST /auth/email/verify. Every failure (unknown, expired,
 * used or dead challenge, wrong code) is the same `unauthorized`. A wrong
 * code (any guess, well-formed or not) is counted and committed before the
 * refusal; at EMAIL_CODE_MAX_ATTEMPTS the challenge is dead, so a code cannot
 * be guessed in the attempts one challenge allows (5 in a million). The right
 * code consumes the challenge in the transaction that opens the session, and
 * signs in to the account of the address, created on first sign-in.
 */
export async function verifyEmailSignIn(
  deps: Omit<EmailSignInDeps, 'brand'>,
  input: { readonly challengeId: string; readonly code: string },
): Promise<EmailSession> {
  if (!isUuid(input.challengeId)) throw new IvoryError('unauthorized');
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const now = deps.clock.now();
    const challenge = await lockEmailChallenge(trx, input.challengeId);
    if (
      challenge === undefined ||
      challenge.consumedAt !== null ||
      challenge.expiresAt <= now ||
      challenge.attempts >= EMAIL_CODE_MAX_ATTEMPTS
    ) {
      return { kind: 'refused' };
    }
    const digest = emailCodeDigest(deps.secrets, challenge.id, isEmailCodeShape(input.code) ? input.code : '');
    if (!isEmailCodeShape(input.code) || !constantTimeEqual(digest, challenge.codeDigest)) {
      await countWrongEmailCode(trx, challenge.id);
      return { kind: 'refused' };
    }

    await consumeEmailChallenge(trx, challenge.id, now);
    const userId = await findOrCreateIdentityUser(trx, deps.clock, { provider: 'email', subject: challenge.subject, label: challenge.address });
    const session = await startSession(trx, deps.clock, userId, 'email');
    const user = await findUser(trx, userId);
    if (user === undefined) throw new Error(`user ${userId} vanished while signing in`);
    return {
      kind: 'signed_in',
      session: { token: session.token, expiresAt: session.expiresAt, csrf: session.csrfToken, user: sessionUserView(user, null) },
    };
  });
  if (outcome.kind === 'refused') throw new IvoryError('unauthorized');
  return outcome.session;
}
