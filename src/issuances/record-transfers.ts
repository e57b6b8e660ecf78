import { asId, asNullableId, type IssuanceId, type PayoutId } from '../platform/ids.js';
import type { Tx } from '../platform/database/database.js';
import { creditInMemory, type BatchIssuance, type BatchRows, type EventToWrite } from './credit-in-memory.js';
import type { Issuance, Transfer } from './issuance.js';
import { findIssuanceGroups, lockIssuances, updateIssuanceBalances } from './issuances.repository.js';
import type { LedgerDeps } from './payout-port.js';
import { freshTransfer, recordTransfer, type IncomingTransfer, type RecordOutcome } from './record-transfer.js';
import { appendEvents } from '../events/index.js';
import { attachUnsweptTransfersMany, insertTransfers, lockTransfersByKeys, transferKey, updateTransfers } from './transfers.repository.js';
import { transferEventData } from './event-data.js';

/**
 * The batch entry into the ledger: `recordTransfer` applied to each transfer
 * in order, with the same outcomes, rows and events, in a few statements per
 * batch instead of ~10 per transfer (issue 22; decision 0027). Each touched
 * issuance is locked once, its transfers run through the pure lifecycle in
 * memory, and the results are written in sets: one `unnest` insert of the new
 * transfers (already in their final state: a transfer confirmed at first
 * sight is inserted confirmed), one update of the known ones, one of the
 * issuances, one insert of the events.
 *
 * Issuances the set-based path does not cover go through `recordTransfer`
 * one by one, in batch order: options of a group (the group lock comes before
 * the issuance's, and options of one group affect each other), any issuance
 * with a reversal in the batch (reversals need the payout that swept the
 * transfer), and invoices already funded, settled or reconciling (their live
 * payout decides overpayment against lateness). All are rare in a catch-up;
 * issuances never affect each other outside a group, so running those first
 * changes no result.
 */
export async function recordTransfers(trx: Tx, deps: LedgerDeps, incoming: readonly IncomingTransfer[]): Promise<RecordOutcome[]> {
  const outcomes: RecordOutcome[] = incoming.map(() => ({ outcome: 'unknown' }));
  if (incoming.length === 0) return outcomes;
  const issuanceIds = [...new Set(incoming.map((transfer) => asId<IssuanceId>(transfer.issuanceId)))];
  const groups = await findIssuanceGroups(trx, issuanceIds);

  // Group options first: no issuance lock is held yet, so the group → issuance lock order holds.
  const grouped = (transfer: IncomingTransfer) => groups.get(asId<IssuanceId>(transfer.issuanceId)) !== null;
  const hasReversal = new Set(incoming.filter((transfer) => transfer.status === 'reverted').map((transfer) => transfer.issuanceId));
  const oneByOne = (transfer: IncomingTransfer) => grouped(transfer) || hasReversal.has(transfer.issuanceId);
  await recordOneByOne(trx, deps, incoming, outcomes, (transfer) => groups.has(asId(transfer.issuanceId)) && grouped(transfer));

  const candidates = issuanceIds.filter((id) => groups.get(id) === null);
  const locked = await lockIssuances(trx, candidates);
  const setBased = new Set([...locked.values()].filter(coveredBySets).map((issuance) => issuance.id as string));
  await recordOneByOne(trx, deps, incoming, outcomes, (transfer) => locked.has(asId(transfer.issuanceId)) && (oneByOne(transfer) || !setBased.has(transfer.issuanceId)));

  const indexes = incoming.flatMap((transfer, index) => (setBased.has(transfer.issuanceId) && !oneByOne(transfer) ? [index] : []));
  if (indexes.length > 0) await recordInSets(trx, deps, incoming, indexes, locked, outcomes);
  return outcomes;
}

/** Whether the set-based path reproduces `recordTransfer` for this (locked, ungrouped) issuance. */
function coveredBySets(issuance: Issuance): boolean {
  return issuance.kind === 'deposit' || issuance.status === 'open' || issuance.status === 'registering';
}

async function recordOneByOne(
  trx: Tx,
  deps: LedgerDeps,
  incoming: readonly IncomingTransfer[],
  outcomes: RecordOutcome[],
  select: (transfer: IncomingTransfer) => boolean,
): Promise<void> {
  for (const [index, transfer] of incoming.entries()) {
    if (select(transfer)) outcomes[index] = await recordTransfer(trx, deps, transfer);
  }
}

async function recordInSets(
  trx: Tx,
  deps: LedgerDeps,
  incoming: readonly IncomingTransfer[],
  indexes: readonly number[],
  locked: ReadonlyMap<IssuanceId, Issuance>,
  outcomes: RecordOutcome[],
): Promise<void> {
  const { now } = deps;
  const keys = [...new Map(indexes.map((index) => [transferKey(incoming[index] as IncomingTransfer), incoming[index] as IncomingTransfer])).values()];
  const rows: BatchRows = { transfers: await lockTransfersByKeys(trx, keys), sweptBy: new Map() };
  // Stored rows as loaded: only those the batch changed are written back (as recordTransfer writes only what it changes).
  const known = new Map(rows.transfers);
  const runs = new Map<string, BatchIssuance>();
  const events: EventToWrite[] = [];
  const recorded: { index: number; key: string; issuance: Issuance; events: EventToWrite[] }[] = [];

  for (const index of indexes) {
    const transfer = incoming[index] as IncomingTransfer;
    const issuance = locked.get(asId<IssuanceId>(transfer.issuanceId)) as Issuance;
    const run = runs.get(issuance.id) ?? { issuance, payouts: [], live: null, touched: false };
    runs.set(issuance.id, run);
    const key = transferKey(transfer);
    let current = rows.transfers.get(key);
    const inserted = current === undefined;
    if (current === undefined) {
      current = freshTransfer(issuance, transfer, now);
      rows.transfers.set(key, current);
    }
    if (current.issuanceId !== issuance.id) continue; // 'unknown', as recordTransfer answers
    const repeated = transfer.status === 'observed' ? !inserted : current.status !== 'observed';
    if (repeated) {
      outcomes[index] = { outcome: 'duplicate_delivery', transferId: current.id };
      continue;
    }
    const written = creditInMemory(run, rows, key, transfer.status === 'observed' ? 'observed' : 'confirmed', now);
    events.push(...written);
    recorded.push({ index, key, issuance: run.issuance, events: written });
  }

  // Payouts before the transfers that point at them. Only a batch's first
  // payout of an issuance can sweep transfers confirmed before the batch.
  const payouts = [...runs.values()].flatMap((run) => run.payouts);
  const payoutIds = await deps.ledger.payouts.scheduleMany(trx, now, payouts);
  for (const [position, payout] of payouts.entries()) payout.id = payoutIds[position] ?? null;
  // The issuances first: their update moves their checkout view stamps, so the
  // transfer writes below need not move them again (migration 202611300500).
  await updateIssuanceBalances(trx, now, [...runs.values()].filter((run) => run.touched).map((run) => run.issuance));
  const firstPayouts: { issuanceId: IssuanceId; payoutId: PayoutId }[] = [];
  for (const run of runs.values()) {
    const first = run.payouts[0]?.id;
    if (first !== undefined && first !== null) firstPayouts.push({ issuanceId: run.issuance.id, payoutId: first });
  }
  await attachUnsweptTransfersMany(trx, firstPayouts);
  const envelopes = await appendEvents(
    trx,
    { now, subscribers: deps.ledger.eventSubscribers },
    events.map((event) => ({
      shopId: event.issuance.shopId,
      type: event.type,
      issuanceId: event.issuance.id,
      data: transferEventData(event.issuance, null, event.transfer, event.duplicate),
    })),
  );
  const confirmedEvents = new Map<string, string>();
  for (const [position, event] of events.entries()) {
    event.id = envelopes[position]?.id ?? null;
    if (event.type === 'transfer.confirmed' && event.id !== null) confirmedEvents.set(event.transfer.id, event.id);
  }

  const finished = new Map<string, Transfer>();
  for (const [key, transfer] of rows.transfers) {
    const payoutId = rows.sweptBy.get(transfer.id)?.id ?? transfer.payoutId;
    finished.set(key, { ...transfer, payoutId, confirmedEventId: asNullableId(confirmedEvents.get(transfer.id) ?? null) ?? transfer.confirmedEventId });
  }
  const fresh = [...finished].filter(([key]) => !known.has(key)).map(([, transfer]) => transfer);
  // The issuance locks keep out every other writer of these keys but one
  // recording the same key for another issuance (a broken feed): give up the batch.
  const inserted = await insertTransfers(trx, fresh);
  if (inserted !== fresh.length) throw new Error(`ledger batch: ${fresh.length - inserted} transfer key(s) stored concurrently; retry the batch`);
  const changed = [...finished].filter(([key, transfer]) => {
    const loaded = known.get(key);
    return loaded !== undefined && (rows.transfers.get(key) !== loaded || transfer.payoutId !== loaded.payoutId);
  });
  await updateTransfers(trx, changed.map(([, transfer]) => transfer));

  for (const entry of recorded) {
    const transfer = finished.get(entry.key) as Transfer;
    outcomes[entry.index] = {
      outcome: 'recorded',
      transferId: transfer.id,
      disposition: transfer.disposition,
      eventIds: entry.events.map((event) => event.id ?? ''),
      issuance: entry.issuance,
    };
  }
}
