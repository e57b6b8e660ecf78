import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { findUser } from './accounts.repository.js';

/** SPEC "Errors" onboarding_required: shop operations wait until the user has onboarded. */
export async function requireOnboarded(trx: Executor, userId: string): Promise<void> {
  const user = await findUser(trx, userId);
  if (user?.onboardedAt == null) throw new IvoryError('onboarding_required');
}
