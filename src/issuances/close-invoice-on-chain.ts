import type { Tx } from '../platform/database/database.js';
import type { IssuanceId } from '../platform/ids.js';
import { applyTransition, lifecycleStateOf } from './apply-transition.js';
import { findIssuanceById, lockGroup, lockIssuance } from './issuances.repository.js';
import { transition } from './issuance-lifecycle.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * The invoice closed on chain (SPEC: funded → settled, event invoice.closed):
 * reported by a chain watcher, or simulated in the sandbox. Answers the event
 * id, or undefined when the invoice is not funded (nothing changes).
 */
export async function closeInvoiceOnChain(trx: Tx, deps: LedgerDeps, issuanceId: IssuanceId): Promise<string | undefined> {
  const unlocked = await findIssuanceById(trx, issuanceId);
  if (unlocked === undefined) return undefined;
  const group = unlocked.groupId === null ? null : ((await lockGroup(trx, unlocked.groupId)) ?? null);
  const issuance = await lockIssuance(trx, issuanceId);
  if (issuance === undefined) return undefined;
  const payout = (await deps.ledger.payouts.lockCurrent(trx, issuance.id)) ?? null;
  const result = transition(lifecycleStateOf(issuance, group, payout), { type: 'invoice_closed' });
  if ('refused' in result) return undefined;
  const applied = await applyTransition(trx, deps, { issuance, group, payout }, result);
  return applied.eventIds[0];
}
