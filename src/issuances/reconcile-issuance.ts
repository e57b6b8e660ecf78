import type { Tx } from '../platform/database/database.js';
import { applyTransition, lifecycleStateOf } from './apply-transition.js';
import type { Issuance } from './issuance.js';
import { transition } from './issuance-lifecycle.js';
import { findGroupById } from './issuances.repository.js';

/**
 * LEDGER "Reversals": a confirmed payout's sweep was reorged away, so the
 * recipient was paid from funds that are gone; the issuance goes to
 * `reconciling` for an operator (no event of its own: payout.reverted says
 * it). The caller holds the issuance lock. Answers the issuance as it is now.
 */
export async function reconcileAfterPayoutReverted(trx: Tx, now: Date, issuance: Issuance): Promise<Issuance> {
  const group = issuance.groupId === null ? null : ((await findGroupById(trx, issuance.groupId)) ?? null);
  const result = transition(lifecycleStateOf(issuance, group, null), { type: 'payout_reverted' });
  if ('refused' in result) return issuance;
  const applied = await applyTransition(trx, now, { issuance, group, payout: null }, result);
  return applied.issuance;
}
