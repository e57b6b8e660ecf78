import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { enqueueMail } from '../platform/mail/enqueue-mail.js';
import { findIdentityOwner } from './accounts.repository.js';
import { DISPOSABLE, EMAIL_RULE, isDisposableDomain, parseEmailAddress } from './email-address.js';
import {
  EMAIL_CODE_LIFETIME_MS,
  EMAIL_START_WINDOW_MS,
  EMAIL_STARTS_PER_WINDOW,
  emailCodeDigest,
  emailCodeMessage,
  newEmailCode,
} from './email-code.js';
import { countEmailChallengesSince, insertEmailChallenge, lockEmailSubject } from './email-challenges.repository.js';

export interface EmailSignInDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly brand: string;
}

/** `throttled`: the address had its starts for the window; try again after the seconds given. */
export type EmailSignInStart =
  | { readonly kind: 'started'; readonly challengeId: string }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

/**
 * SPEC "Sign-in" POST /auth/email/start: a challenge and, in the same
 * transaction, the mail with its code for the mail worker to send. Refuses a
 * malformed address (invalid_email) and a disposable one that has no account
 * yet (disposable_email); an address with an account may always sign in.
 * Nothing is written when it refuses or throttles.
 */
export async function startEmailSignIn(deps: EmailSignInDeps, input: { readonly email: string }): Promise<EmailSignInStart> {
  const email = parseEmailAddress(input.email);
  if (email === undefined) throw fieldError('invalid_email', 'email', EMAIL_RULE);

  return inTransaction(deps.db, async (trx) => {
    await lockEmailSubject(trx, email.subject);
    const owner = await findIdentityOwner(trx, 'email', email.subject);
    if (owner === undefined && isDisposableDomain(email.domain)) throw fieldError('disposable_email', 'email', DISPOSABLE);

    const now = deps.clock.now();
    const recent = await countEmailChallengesSince(trx, email.subject, new Date(now.getTime() - EMAIL_START_WINDOW_MS));
    if (recent.count >= EMAIL_STARTS_PER_WINDOW) {
      const freesAt = (recent.oldest ?? now).getTime() + EMAIL_START_WINDOW_MS;
      return { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
    }

    const challengeId = newId();
    const code = newEmailCode();
    const expiresAt = new Date(now.getTime() + EMAIL_CODE_LIFETIME_MS);
    await insertEmailChallenge(trx, {
      id: challengeId,
      subject: email.subject,
      address: email.address,
      codeDigest: emailCodeDigest(deps.secrets, challengeId, code),
      createdAt: now,
      expiresAt,
    });
    await enqueueMail(trx, deps, emailCodeMessage(deps.brand, email.address, code), { expiresAt });
    return { kind: 'started', challengeId };
  });
}
