import type { PayoutBroadcast, PayoutRequest } from '../../chain-adapter.js';
import { DEFAULT_SWEEP_BATCH_MAX } from '../evm-network.js';
import type { Forwarder } from '../forwarders/index.js';
import { ensureRelayer, type Relayer } from '../relayer/index.js';
import type { PayoutTransaction } from './payout-transactions.repository.js';
import { inspectSweep, planCall, sweepCallData } from './prepare-sweep.js';
import {
  answerUnsweepable,
  attemptsOf,
  broadcastStored,
  forwarderOfRequest,
  noteSplit,
  resumeAttempt,
  sendEvmPayout,
  sendInspected,
  signingDeps,
  waitForGas,
  type SendEvmPayoutDeps,
} from './send-evm-payout.js';
import { signNewAttempt } from './sign-payout-transaction.js';

/** One payout of the pass whose forwarder simulated a sweep: a candidate for a batch. */
interface Sweepable {
  readonly request: PayoutRequest;
  readonly forwarder: Forwarder;
  readonly split: { readonly toRecipient: bigint; readonly toOperator: bigint };
}

/**
 * Sends the sweeps of several payouts due in the same pass (issue 22 item 3,
 * docs/decisions/0037): the forwarders of one factory go out together as
 * `sweepBatch(terms[])`, at most the network's `sweepBatchMax` per
 * transaction, under the same crash-safety as a single sweep (signed, stored
 * with its nonce and its members in one database transaction, then
 * broadcast). Answers one outcome per request, in order, each with the
 * meaning of `sendEvmPayout`'s (a rejection is its throw).
 *
 * One bad sweep never holds the others back:
 * - each forwarder is inspected alone first (`sweep` simulated): one that
 *   would revert gets its own answer and joins no batch;
 * - a batch whose simulation or gas estimate fails is sent as single sweeps;
 * - a payout whose last attempt was a batch that failed on chain (reverted,
 *   or its nonce taken) is sent alone next time, so a forwarder that only
 *   fails inside a batch is isolated after one failure.
 */
export async function sendEvmPayouts(deps: SendEvmPayoutDeps, requests: readonly PayoutRequest[]): Promise<PromiseSettledResult<PayoutBroadcast>[]> {
  const answers = new Map<string, PromiseSettledResult<PayoutBroadcast>>();
  const answer = async (payoutIds: readonly string[], work: () => Promise<PayoutBroadcast>) => {
    const settled = await settle(work);
    for (const payoutId of payoutIds) answers.set(payoutId, settled);
  };
  let relayer: Relayer;
  try {
    relayer = await ensureRelayer(deps.db, deps.secrets, deps.network.chainId);
  } catch (reason) {
    return requests.map(() => ({ status: 'rejected', reason }));
  }

  const sweepable: Sweepable[] = [];
  // A batch's live attempt is resumed once for all its members in this pass.
  const resumed = new Map<string, Promise<PayoutBroadcast | 'finished'>>();
  for (const request of requests) {
    await answer([request.payoutId], async () => {
      const found = await forwarderOfRequest(deps, request);
      if ('kind' in found) return found;
      const { transactions, live } = await attemptsOf(deps, request.payoutId);
      if (live !== undefined) {
        const key = attemptKey(live[0] as PayoutTransaction);
        if (!resumed.has(key)) resumed.set(key, resumeAttempt(deps, live));
        const outcome = await (resumed.get(key) as Promise<PayoutBroadcast | 'finished'>);
        if (outcome !== 'finished') return outcome;
      }
      if (lastAttemptWasFailedBatch(transactions)) return sendEvmPayout(deps, request);
      const inspection = await inspectSweep(deps.client, found.forwarder, relayer.address);
      if (inspection.kind !== 'sweepable') return answerUnsweepable(found.forwarder, inspection);
      sweepable.push({ request, forwarder: found.forwarder, split: inspection });
      return PENDING;
    });
  }

  const max = Math.max(1, deps.network.sweepBatchMax ?? DEFAULT_SWEEP_BATCH_MAX);
  for (const batch of batchesOf(sweepable, max)) {
    const [only] = batch;
    if (only !== undefined && batch.length === 1) {
      await answer([only.request.payoutId], () => sendInspected(deps, only.request, only.forwarder, relayer, { kind: 'sweepable', ...only.split }));
    } else {
      await sendBatch(deps, relayer, batch, answer);
    }
  }
  return requests.map((request) => {
    const settled = answers.get(request.payoutId);
    if (settled === undefined || (settled.status === 'fulfilled' && settled.value === PENDING)) {
      return { status: 'rejected', reason: new Error(`payout ${request.payoutId} got no answer`) };
    }
    return settled;
  });
}

/** Several forwarders of one factory in one `sweepBatch` transaction, or singly when the batch would not go through. */
async function sendBatch(
  deps: SendEvmPayoutDeps,
  relayer: Relayer,
  batch: readonly Sweepable[],
  answer: (payoutIds: readonly string[], work: () => Promise<PayoutBroadcast>) => Promise<void>,
): Promise<void> {
  const payoutIds = batch.map((member) => member.request.payoutId);
  const first = batch[0] as Sweepable;
  const singly = async () => {
    for (const member of batch) await answer([member.request.payoutId], () => sendEvmPayout(deps, member.request));
  };
  let plan: Awaited<ReturnType<typeof planCall>>;
  try {
    plan = await planCall(deps.client, first.forwarder.factory, sweepCallData(batch.map((member) => member.forwarder)), relayer.address);
  } catch (error) {
    // Each sweep simulated alone, not together (or the estimate failed): nothing is lost by sending them one by one.
    deps.log.warn({ err: error, payoutIds }, 'batched sweep would not go through; sending its sweeps one by one');
    return singly();
  }
  if (plan.kind === 'waiting_gas') return answer(payoutIds, () => waitForGas(deps, payoutIds, relayer, plan));
  for (const member of batch) noteSplit(deps, member.request, member.split);
  let inFlight = false;
  await answer(payoutIds, async () => {
    const signed = await signNewAttempt(signingDeps(deps), { payoutIds, ...plan });
    if (signed.kind === 'in_flight') {
      inFlight = true;
      return PENDING;
    }
    return broadcastStored(deps, signed.transaction);
  });
  // Another process signed for one of them meanwhile: each finds its own way (its live attempt, or a sweep alone).
  if (inFlight) await singly();
}

/** Forwarders of one factory together, in the order of the requests, at most `max` per batch. */
function batchesOf(sweepable: readonly Sweepable[], max: number): Sweepable[][] {
  const byFactory = new Map<string, Sweepable[]>();
  for (const item of sweepable) byFactory.set(item.forwarder.factory, [...(byFactory.get(item.forwarder.factory) ?? []), item]);
  const batches: Sweepable[][] = [];
  for (const items of byFactory.values()) {
    for (let start = 0; start < items.length; start += max) batches.push(items.slice(start, start + max));
  }
  return batches;
}

/** The payout's newest attempt was a batch and it ended without a sweep: its next is sent alone. */
function lastAttemptWasFailedBatch(transactions: readonly PayoutTransaction[]): boolean {
  const newest = transactions[0];
  if (newest === undefined || newest.payoutIds.length < 2) return false;
  const attempt = transactions.filter((row) => row.nonce === newest.nonce && row.relayer === newest.relayer);
  return attempt.every((row) => row.status === 'failed' || row.status === 'dropped' || row.status === 'replaced');
}

const attemptKey = (transaction: PayoutTransaction) => `${transaction.relayer}:${transaction.nonce}`;

/** Not answered yet: the payout waits for its batch. Never returned to the worker. */
const PENDING: PayoutBroadcast = Object.freeze({ kind: 'failed', reason: 'internal: no answer yet' });

async function settle(work: () => Promise<PayoutBroadcast>): Promise<PromiseSettledResult<PayoutBroadcast>> {
  try {
    return { status: 'fulfilled', value: await work() };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}
