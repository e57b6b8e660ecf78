import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import { findIdentityOwner, insertIdentity, lockUser, markUserOnboarded, userHasIdentityOf } from './accounts.repository.js';
import { DISPOSABLE, EMAIL_RULE, isDisposableDomain, parseEmailAddress, type EmailAddress } from './email-address.js';
import { insertGrant, insertMerchant } from './merchant-access.repository.js';
import { MAX_MERCHANT_NAME_LENGTH, parseMerchantName } from './merchant-name.js';

const ALREADY_LINKED = 'is already a sign-in method of another account';

/** `created` false: the user had completed onboarding before; nothing changed. */
export type OnboardingOutcome = { readonly created: boolean };

/**
 * SPEC "Account" POST /onboarding: the first merchant, its owner grant and,
 * when given, the e-mail as a sign-in method of this account. Input is
 * checked for shape first; a repeat after completion then answers without
 * looking further and changes nothing. The user row is locked so two
 * onboardings under different idempotency keys cannot make two merchants.
 */
export async function completeOnboarding(
  trx: Tx,
  clock: Clock,
  input: { readonly userId: string; readonly name: string; readonly email: string | undefined },
): Promise<OnboardingOutcome> {
  const name = parseMerchantName(input.name);
  if (name === undefined) throw fieldError('invalid_name', 'name', `must be 1 to ${MAX_MERCHANT_NAME_LENGTH} characters, not only spaces`);
  const email = input.email === undefined ? undefined : parseEmailAddress(input.email);
  if (input.email !== undefined && email === undefined) throw fieldError('invalid_email', 'email', EMAIL_RULE);

  const user = await lockUser(trx, input.userId);
  if (user === undefined) throw new IvoryError('unauthorized');
  if (user.onboardedAt !== null) return { created: false };

  const now = clock.now();
  if (email === undefined) {
    if (!(await userHasIdentityOf(trx, user.id, 'email'))) throw fieldError('email_required', 'email', 'required: this account has no e-mail sign-in yet');
  } else {
    await linkEmail(trx, user.id, email, now);
  }

  const merchantId = newId();
  await insertMerchant(trx, { id: merchantId, name, createdAt: now });
  await insertGrant(trx, { id: newId(), merchantId, userId: user.id, role: 'owner', shopId: null, createdAt: now });
  await markUserOnboarded(trx, user.id, now);
  return { created: true };
}

/**
 * An address already linked to this user is accepted as is (disposable or
 * not: it has an account). One linked elsewhere is refused; a new one must
 * not be disposable (SPEC "Errors": refused for addresses with no account yet).
 */
async function linkEmail(trx: Tx, userId: string, email: EmailAddress, now: Date): Promise<void> {
  const owner = await findIdentityOwner(trx, 'email', email.subject);
  if (owner === userId) return;
  if (owner !== undefined) throw fieldError('identity_already_linked', 'email', ALREADY_LINKED);
  if (isDisposableDomain(email.domain)) throw fieldError('disposable_email', 'email', DISPOSABLE);
  const linked = await insertIdentity(trx, {
    id: newId(),
    userId,
    provider: 'email',
    subject: email.subject,
    label: email.address,
    createdAt: now,
  });
  if (!linked) throw fieldError('identity_already_linked', 'email', ALREADY_LINKED); // linked by someone else meanwhile
}
