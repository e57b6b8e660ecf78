import { appendEvent } from '../events/index.js';
import type { Tx } from '../platform/database/database.js';
import { cancelledEventData, issuanceEventData, revertedEventData, transferEventData } from './event-data.js';
import type { Issuance, IssuanceGroup, Transfer } from './issuance.js';
import type { LifecycleEffect, LifecycleResult, LifecycleState } from './issuance-lifecycle.js';
import { updateGroup, updateIssuance, type IssuancePatch } from './issuances.repository.js';
import type { IssuancePayout, LedgerDeps } from './payout-port.js';
import { attachUnsweptTransfers, detachTransfers, updateTransfer } from './transfers.repository.js';

/**
 * Persists what `transition` decided: the issuance's new numbers and status,
 * then each effect (payout rows, the group's paid option, events). The caller
 * holds the group and issuance locks and has already updated the transfer row.
 */
export interface TransitionContext {
  readonly issuance: Issuance;
  readonly group: IssuanceGroup | null;
  /** The payout the lifecycle state described (`LifecycleState.payout`). */
  readonly payout: IssuancePayout | null;
  readonly transfer?: Transfer;
  readonly referenceEventId?: string | null;
}

/** The lifecycle view of an issuance and the payout that matters for the input. */
export function lifecycleStateOf(issuance: Issuance, group: IssuanceGroup | null, payout: IssuancePayout | null): LifecycleState {
  return {
    kind: issuance.kind,
    status: issuance.status,
    amount: issuance.amount,
    received: issuance.received,
    credited: issuance.credited,
    unswept: issuance.unswept,
    sweepThreshold: issuance.sweepThreshold,
    feeTerms: issuance.feeTerms,
    tokenDecimals: issuance.tokenDecimals,
    cancelled: issuance.cancelledAt !== null,
    disabled: issuance.disabledAt !== null,
    paidElsewhere: group !== null && group.paidIssuanceId !== null && group.paidIssuanceId !== issuance.id,
    payout: payout === null ? null : { stage: payout.broadcast ? 'broadcast' : 'unsent', gross: payout.gross },
  };
}

export interface Applied {
  readonly issuance: Issuance;
  /** Ids of the events written, in order. */
  readonly eventIds: readonly string[];
}

export async function applyTransition(trx: Tx, deps: LedgerDeps, context: TransitionContext, result: LifecycleResult): Promise<Applied> {
  const { now } = deps;
  const before = context.issuance;
  const next = result.state;
  const patch: IssuancePatch = {};
  let issuance: Issuance = { ...before, received: next.received, credited: next.credited, unswept: next.unswept, status: next.status };
  patch.received = next.received;
  patch.credited = next.credited;
  patch.unswept = next.unswept;
  if (next.status !== before.status) {
    patch.status = next.status;
    if (next.status === 'funded') issuance = { ...issuance, fundedAt: now };
    if (before.status === 'funded' && next.status === 'open') issuance = { ...issuance, fundedAt: null };
    if (next.status === 'settled') issuance = { ...issuance, settledAt: now };
    patch.funded_at = issuance.fundedAt;
    patch.settled_at = issuance.settledAt;
  }
  for (const effect of result.effects) {
    if (effect.type === 'set_address') {
      issuance = { ...issuance, address: effect.address };
      patch.address = effect.address;
      patch.next_allocation_at = null;
    }
    if (effect.type === 'set_cancelled') {
      issuance = { ...issuance, cancelledAt: now, cancelReason: effect.reason };
      patch.cancelled_at = now;
      patch.cancel_reason = effect.reason;
    }
    if (effect.type === 'disable') {
      issuance = { ...issuance, disabledAt: now };
      patch.disabled_at = now;
    }
    if (effect.type === 'enable') {
      issuance = { ...issuance, disabledAt: null };
      patch.disabled_at = null;
    }
  }
  await updateIssuance(trx, before.id, now, patch);

  const eventIds: string[] = [];
  for (const effect of result.effects) {
    const eventId = await applyEffect(trx, deps, { ...context, issuance }, result, effect);
    if (eventId !== undefined) eventIds.push(eventId);
  }
  return { issuance, eventIds };
}

async function applyEffect(
  trx: Tx,
  deps: LedgerDeps,
  context: TransitionContext,
  result: LifecycleResult,
  effect: LifecycleEffect,
): Promise<string | undefined> {
  const { issuance, group, payout } = context;
  switch (effect.type) {
    case 'set_address':
    case 'set_cancelled':
    case 'disable':
    case 'enable':
      return undefined; // written with the issuance row
    case 'schedule_payout': {
      const id = await deps.ledger.payouts.schedule(trx, deps.now, issuance, effect.split);
      await attachUnsweptTransfers(trx, issuance.id, id);
      return undefined;
    }
    case 'resplit_payout': {
      if (payout === null) throw new Error('resplit_payout without a payout');
      await deps.ledger.payouts.resplit(trx, deps.now, payout.id, effect.split);
      await attachUnsweptTransfers(trx, issuance.id, payout.id);
      return undefined;
    }
    case 'cancel_payout':
      if (payout === null) throw new Error('cancel_payout without a payout');
      await deps.ledger.payouts.cancel(trx, deps.now, payout.id);
      await detachTransfers(trx, payout.id);
      return undefined;
    case 'mark_group_paid':
      if (group !== null) await updateGroup(trx, group.id, { paid_issuance_id: issuance.id });
      return undefined;
    case 'unmark_group_paid':
      if (group !== null && group.paidIssuanceId === issuance.id) await updateGroup(trx, group.id, { paid_issuance_id: null });
      return undefined;
    case 'emit_cancelled':
      return append(trx, deps, issuance, 'invoice.cancelled', cancelledEventData(issuance, group, effect.reason));
    case 'emit':
      return emit(trx, deps, context, result, effect.event);
  }
}

async function emit(
  trx: Tx,
  deps: LedgerDeps,
  context: TransitionContext,
  result: LifecycleResult,
  event: 'transfer.observed' | 'transfer.confirmed' | 'transfer.reverted' | 'invoice.closed',
): Promise<string> {
  const { issuance, group, transfer } = context;
  if (event === 'invoice.closed') return append(trx, deps, issuance, event, issuanceEventData(issuance, group));
  if (transfer === undefined) throw new Error(`${event} without a transfer`);
  if (event === 'transfer.reverted') {
    return append(trx, deps, issuance, event, revertedEventData(issuance, group, transfer, context.referenceEventId ?? null));
  }
  const id = await append(trx, deps, issuance, event, transferEventData(issuance, group, transfer, result.duplicate === true));
  if (event === 'transfer.confirmed') await updateTransfer(trx, transfer.id, { confirmed_event_id: id });
  return id;
}

async function append(trx: Tx, deps: LedgerDeps, issuance: Issuance, type: Parameters<typeof appendEvent>[2]['type'], data: Record<string, unknown>) {
  const envelope = await appendEvent(trx, { now: deps.now, subscribers: deps.ledger.eventSubscribers }, { shopId: issuance.shopId, type, issuanceId: issuance.id, data });
  return envelope.id;
}
