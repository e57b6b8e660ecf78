import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { findIdentityOwner, insertIdentity, lockUser, markUserOnboarded, userHasIdentityOf } from './accounts.repository.js';
import { isDisposableDomain, parseEmailAddress, type EmailAddress } from './email-address.js';
import { insertGrant, insertMerchant } from './merchant-access.repository.js';
import { parseMerchantName } from './merchant-name.js';

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
  if (name === undefined) throw new IvoryError('invalid_name');
  const email = input.email === undefined ? undefined : parseEmailAddress(input.email);
  if (input.email !== undefined && email === undefined) throw new IvoryError('invalid_email');

  const user = await lockUser(trx, input.userId);
  if (user === undefined) throw new IvoryError('unauthorized');
  if (user.onboardedAt !== null) return { created: false };

  const now = clock.now();
  if (email === undefined) {
    if (!(await userHasIdentityOf(trx, user.id, 'email'))) throw new IvoryError('email_required');
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
  if (owner !== undefined) throw new IvoryError('identity_already_linked');
  if (isDisposableDomain(email.domain)) throw new IvoryError('disposable_email');
  const linked = await insertIdentity(trx, {
    id: newId(),
    userId,
    provider: 'email',
    subject: email.subject,
    label: email.address,
    createdAt: now,
  });
  if (!linked) throw new IvoryError('identity_already_linked'); // linked by someone else meanwhile
}
