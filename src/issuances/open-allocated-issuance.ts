import type { Tx } from '../platform/database/database.js';
import type { IssuanceId } from '../platform/ids.js';
import { applyTransition, lifecycleStateOf } from './apply-transition.js';
import { lockIssuance } from './issuances.repository.js';
import { transition } from './issuance-lifecycle.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * A registering issuance got its payment address from its chain adapter
 * (SPEC: registering → open). False when it was not registering any more
 * (another worker stored an address first): nothing changes.
 */
export async function openAllocatedIssuance(trx: Tx, deps: LedgerDeps, issuanceId: IssuanceId, address: string): Promise<boolean> {
  const issuance = await lockIssuance(trx, issuanceId);
  if (issuance === undefined) return false;
  // The group and payout do not matter to this transition: none exists before an address does.
  const result = transition(lifecycleStateOf(issuance, null, null), { type: 'address_allocated', address });
  if ('refused' in result) return false;
  await applyTransition(trx, deps, { issuance, group: null, payout: null }, result);
  return true;
}
