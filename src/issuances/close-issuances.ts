import type { Tx } from '../platform/database/database.js';
import type { GroupId, IssuanceId } from '../platform/ids.js';
import { applyTransition, lifecycleStateOf } from './apply-transition.js';
import type { CancelReason, Issuance, IssuanceGroup } from './issuance.js';
import { transition, type LifecycleInput } from './issuance-lifecycle.js';
import { lockGroup, lockGroupOptions, lockIssuance, updateGroup } from './issuances.repository.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * Closing the checkout of unpaid invoices (cancel, expiry, operator block) and
 * pausing deposits, for one issuance or a whole group. Status never changes;
 * monitoring continues (SPEC "States and transitions"). Each takes its locks
 * (group, then options) and answers what happened as a value.
 */
export type CloseOutcome = 'closed' | 'unchanged' | 'already_paid' | 'missing';

function inputFor(reason: CancelReason | null): LifecycleInput {
  return reason === 'expired' ? { type: 'expired' } : { type: 'cancelled', reason };
}

/** Cancels an ungrouped invoice; `invoice.cancelled` with the reason (none for the merchant). */
export async function cancelInvoice(trx: Tx, deps: LedgerDeps, issuanceId: IssuanceId, reason: CancelReason | null): Promise<CloseOutcome> {
  const issuance = await lockIssuance(trx, issuanceId);
  if (issuance === undefined || issuance.kind !== 'invoice') return 'missing';
  return cancelOption(trx, deps, issuance, null, reason);
}

/** Cancels an invoice group as one: the group and every option, one event per option. */
export async function cancelInvoiceGroup(trx: Tx, deps: LedgerDeps, groupId: GroupId, reason: CancelReason | null): Promise<CloseOutcome> {
  const group = await lockGroup(trx, groupId);
  if (group === undefined || group.kind !== 'invoice') return 'missing';
  if (group.cancelledAt !== null) return 'unchanged';
  if (group.paidIssuanceId !== null) return 'already_paid';
  await updateGroup(trx, group.id, { cancelled_at: deps.now, cancel_reason: reason });
  const cancelled = { ...group, cancelledAt: deps.now, cancelReason: reason };
  for (const option of await lockGroupOptions(trx, group.id)) await cancelOption(trx, deps, option, cancelled, reason);
  return 'closed';
}

async function cancelOption(
  trx: Tx,
  deps: LedgerDeps,
  issuance: Issuance,
  group: IssuanceGroup | null,
  reason: CancelReason | null,
): Promise<CloseOutcome> {
  const result = transition(lifecycleStateOf(issuance, group, null), inputFor(reason));
  if ('refused' in result) return result.refused === 'already_cancelled' ? 'unchanged' : 'already_paid';
  await applyTransition(trx, deps, { issuance, group, payout: null }, result);
  return 'closed';
}

/** What pausing or re-enabling a deposit did. */
export type DepositOutcome = 'disabled' | 'enabled' | 'unchanged' | 'missing';

/**
 * Pauses (`disabled: true`) or re-enables a deposit or deposit group: the page
 * only; transfers are still credited and swept (LEDGER "Deposits"). Each
 * option goes through the lifecycle; the group row carries the same state.
 * Re-enabling must pass the address limit first (the caller checks it under
 * the merchant lock).
 */
export async function setDepositDisabled(
  trx: Tx,
  deps: LedgerDeps,
  target: { issuanceId?: IssuanceId; groupId?: GroupId },
  disabled: boolean,
): Promise<DepositOutcome> {
  const changed: DepositOutcome = disabled ? 'disabled' : 'enabled';
  if (target.groupId !== undefined) {
    const group = await lockGroup(trx, target.groupId);
    if (group === undefined || group.kind !== 'deposit') return 'missing';
    if ((group.disabledAt !== null) === disabled) return 'unchanged';
    await updateGroup(trx, group.id, { disabled_at: disabled ? deps.now : null });
    const updated = { ...group, disabledAt: disabled ? deps.now : null };
    for (const option of await lockGroupOptions(trx, group.id)) await toggleOption(trx, deps, option, updated, disabled);
    return changed;
  }
  const issuance = target.issuanceId === undefined ? undefined : await lockIssuance(trx, target.issuanceId);
  if (issuance === undefined || issuance.kind !== 'deposit') return 'missing';
  return (await toggleOption(trx, deps, issuance, null, disabled)) ? changed : 'unchanged';
}

async function toggleOption(trx: Tx, deps: LedgerDeps, issuance: Issuance, group: IssuanceGroup | null, disabled: boolean): Promise<boolean> {
  const input: LifecycleInput = disabled ? { type: 'cancelled', reason: null } : { type: 'enabled' };
  const result = transition(lifecycleStateOf(issuance, group, null), input);
  if ('refused' in result) return false;
  await applyTransition(trx, deps, { issuance, group, payout: null }, result);
  return true;
}
