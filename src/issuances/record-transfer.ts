import { newId } from '../platform/crypto.js';
import { asId, type IssuanceId, type TransferId } from '../platform/ids.js';
import type { Tx } from '../platform/database/database.js';
import { applyTransition, lifecycleStateOf } from './apply-transition.js';
import type { Issuance, IssuanceGroup, Transfer, TransferDisposition } from './issuance.js';
import { transition, type LifecycleInput } from './issuance-lifecycle.js';
import { findIssuanceById, lockGroup, lockIssuance } from './issuances.repository.js';
import type { IssuancePayout, LedgerDeps, PayoutLedger } from './payout-port.js';
import { insertTransferOnce, lockTransferByKey, updateTransfer } from './transfers.repository.js';

/**
 * A transfer as a chain watcher (or the sandbox) reports it: the ledger row's
 * chain facts. `logIndex` is the log index (EVM, Tron) or instruction index
 * (Solana): with the hash, the natural key.
 */
export type IncomingTransfer = Pick<Transfer, 'chainId' | 'txHash' | 'logIndex' | 'fromAddress' | 'toAddress' | 'amount' | 'status'> & {
  /** As the watcher read it from `listWatchedAddresses` (chains/ knows no id types). */
  readonly issuanceId: string;
};

export type RecordOutcome =
  | {
      readonly outcome: 'recorded';
      readonly transferId: string;
      readonly disposition: TransferDisposition | null;
      readonly eventIds: readonly string[];
      readonly issuance: Issuance;
    }
  /** The same transfer in the same state was recorded before: nothing changed. */
  | { readonly outcome: 'duplicate_delivery'; readonly transferId: string }
  /** A reversal of a transfer never stored, or an issuance that does not exist. */
  | { readonly outcome: 'unknown' };

/**
 * THE entry into the ledger (ARCHITECTURE rules 2 and 3): the sandbox and every
 * chain watcher record transfers here and nowhere else. A transfer is keyed by
 * (network, tx hash, log index) and moves observed → confirmed → reverted, each
 * step at most once, so repeats and races are no-ops. Locks, in order: the
 * group, the issuance, the transfer, the payout.
 *
 * A transfer reverted before it was confirmed was never credited: it is marked
 * reverted without an event (nothing was credited that a merchant must undo).
 */
export async function recordTransfer(trx: Tx, deps: LedgerDeps, incoming: IncomingTransfer): Promise<RecordOutcome> {
  const { now } = deps;
  const unlocked = await findIssuanceById(trx, asId<IssuanceId>(incoming.issuanceId));
  if (unlocked === undefined) return { outcome: 'unknown' };
  const group = unlocked.groupId === null ? null : ((await lockGroup(trx, unlocked.groupId)) ?? null);
  const issuance = await lockIssuance(trx, unlocked.id);
  if (issuance === undefined) return { outcome: 'unknown' };

  const fresh = freshTransfer(issuance, incoming, now);
  const inserted = incoming.status !== 'reverted' && (await insertTransferOnce(trx, fresh));
  const stored = inserted ? fresh : await lockTransferByKey(trx, incoming.chainId, incoming.txHash, incoming.logIndex);
  if (stored === undefined) return { outcome: 'unknown' };
  if (stored.issuanceId !== issuance.id) return { outcome: 'unknown' };

  if (incoming.status === 'observed') {
    if (!inserted) return { outcome: 'duplicate_delivery', transferId: stored.id };
    return apply(trx, deps, { issuance, group, payout: null, transfer: stored }, { type: 'transfer_observed', amount: stored.amount });
  }
  if (incoming.status === 'confirmed') {
    if (stored.status !== 'observed') return { outcome: 'duplicate_delivery', transferId: stored.id };
    const payout = issuance.kind === 'invoice' ? ((await deps.ledger.payouts.lockCurrent(trx, issuance.id)) ?? null) : null;
    return apply(trx, deps, { issuance, group, payout, transfer: stored }, { type: 'transfer_confirmed', amount: stored.amount });
  }
  if (stored.status === 'reverted') return { outcome: 'duplicate_delivery', transferId: stored.id };
  if (stored.status === 'observed' || stored.disposition === null) {
    await updateTransfer(trx, stored.id, { status: 'reverted', reverted_at: now });
    return { outcome: 'recorded', transferId: stored.id, disposition: null, eventIds: [], issuance };
  }
  const payout = await payoutForReversal(trx, deps.ledger.payouts, issuance, stored);
  return apply(
    trx,
    deps,
    { issuance, group, payout, transfer: stored },
    { type: 'transfer_reverted', amount: stored.amount, disposition: stored.disposition },
  );
}

/** Invoices: the invoice's live payout. Deposits: the payout that swept this transfer. */
async function payoutForReversal(trx: Tx, payouts: PayoutLedger, issuance: Issuance, transfer: Transfer): Promise<IssuancePayout | null> {
  if (issuance.kind === 'invoice') return (await payouts.lockCurrent(trx, issuance.id)) ?? null;
  if (transfer.payoutId === null) return null;
  return (await payouts.lock(trx, transfer.payoutId)) ?? null;
}

async function apply(
  trx: Tx,
  deps: LedgerDeps,
  context: { issuance: Issuance; group: IssuanceGroup | null; payout: IssuancePayout | null; transfer: Transfer },
  input: LifecycleInput,
): Promise<RecordOutcome> {
  const { now } = deps;
  const result = transition(lifecycleStateOf(context.issuance, context.group, context.payout), input);
  if ('refused' in result) throw new Error(`ledger: ${input.type} refused (${result.refused})`);
  let transfer = context.transfer;
  if (input.type === 'transfer_confirmed') {
    transfer = { ...transfer, status: 'confirmed', disposition: result.disposition ?? 'credited', confirmedAt: now };
    await updateTransfer(trx, transfer.id, { status: 'confirmed', disposition: transfer.disposition, confirmed_at: now });
  }
  if (input.type === 'transfer_reverted') {
    // A sweep already broadcast keeps its link (reconciling needs it); otherwise
    // the transfer leaves the payout it was waiting in.
    const payoutId = result.state.status === 'reconciling' ? transfer.payoutId : null;
    transfer = { ...transfer, status: 'reverted', revertedAt: now, payoutId };
    await updateTransfer(trx, transfer.id, { status: 'reverted', reverted_at: now, payout_id: payoutId });
  }
  const applied = await applyTransition(
    trx,
    deps,
    { ...context, transfer, referenceEventId: context.transfer.confirmedEventId },
    result,
  );
  return {
    outcome: 'recorded',
    transferId: transfer.id,
    disposition: transfer.disposition,
    eventIds: applied.eventIds,
    issuance: applied.issuance,
  };
}

/** The row a transfer first seen for `issuance` starts as (observed), in either ledger entry. */
export function freshTransfer(issuance: Issuance, incoming: IncomingTransfer, now: Date): Transfer {
  return {
    id: newId<TransferId>(),
    issuanceId: issuance.id,
    shopId: issuance.shopId,
    sandbox: issuance.sandbox,
    chainId: incoming.chainId,
    token: issuance.token,
    txHash: incoming.txHash,
    logIndex: incoming.logIndex,
    fromAddress: incoming.fromAddress,
    toAddress: incoming.toAddress,
    amount: incoming.amount,
    status: 'observed',
    disposition: null,
    payoutId: null,
    confirmedEventId: null,
    observedAt: now,
    confirmedAt: null,
    revertedAt: null,
    createdAt: now,
  };
}
