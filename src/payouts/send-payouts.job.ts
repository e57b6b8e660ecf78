import type { FastifyBaseLogger } from 'fastify';
import type { PayoutId } from '../platform/ids.js';
import type { ChainAdapters, PayoutBroadcast, PayoutRequest } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type Tx } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import { applyPayoutInput } from './apply-payout-input.js';
import { findIssuanceById, type LedgerPorts } from '../issuances/index.js';
import type { Payout } from './payout.js';
import { claimDuePayouts, leasePayouts, postponePayouts } from './payouts.repository.js';
import { SEND_LEASE_MS, type PayoutInput } from './payout-lifecycle.js';

export interface SendPayoutsDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly adapters: ChainAdapters;
  readonly log: FastifyBaseLogger;
  readonly ledger: LedgerPorts;
}

/**
 * Sent one after another within one lease, so the claim is small; large
 * enough for a network's batched sweeps (EVM `sweepBatch`, docs/decisions/0037).
 */
const BATCH = 20;
/** A payout no adapter can send yet (none configured for its network) is looked at again after this. */
const NO_ADAPTER_RETRY_MS = 5 * 60_000;

interface Claimed {
  readonly payoutId: PayoutId;
  readonly adapterName: string;
  readonly send: (request: PayoutRequest) => Promise<PayoutBroadcast>;
  /** The adapter's batched send, when it has one: the claimed payouts of one adapter go to it together. */
  readonly sendMany: ((requests: readonly PayoutRequest[]) => Promise<PromiseSettledResult<PayoutBroadcast>[]>) | undefined;
  readonly request: PayoutRequest;
}

/**
 * The payout worker (ARCHITECTURE "The spine": claims due payouts → chain
 * adapter sends → watcher confirms). Three steps so that no transaction is
 * held across the adapter call:
 * 1. claim due live payouts (SKIP LOCKED) and mark them `sending` under a
 *    lease (next_attempt_at = lease end), commit;
 * 2. ask the adapter, outside any transaction (an adapter that sends several
 *    at once, `sendPayouts`, gets all of its claimed payouts in one call);
 * 3. record the answer in a new transaction (`applyPayoutInput`): broadcast →
 *    `sent` + payout.sent; waiting_gas → retried later, no event (internal
 *    signal); failed → `failed` + payout.failed; a throw → `scheduled` with a
 *    growing back-off, no event, until the twentieth makes it `failed`.
 * A worker that dies between 1 and 3 leaves its payouts `sending`; they are
 * claimed again only when the lease has run out, and the adapter is asked
 * with the same payout id, by which it must recognise a sweep it already
 * broadcast (the contract in `chains/chain-adapter.ts`). Sandbox payouts are
 * never claimed: sandbox money does not move.
 */
export class SendPayoutsJob implements Job {
  readonly name = 'send-payouts';
  readonly idleMs = 2_000;

  constructor(private readonly deps: SendPayoutsDeps) {}

  async run(): Promise<number> {
    const { db, clock, log, ledger } = this.deps;
    const now = clock.now();
    const lease = new Date(now.getTime() + SEND_LEASE_MS);
    const claimed = await inTransaction(db, (trx) => this.claim(trx, now, lease));
    for (const group of groupsOf(claimed)) {
      const answers = await sendGroup(group);
      for (const [index, { payoutId, adapterName }] of group.entries()) {
        const answer = answers[index] ?? { status: 'rejected', reason: new Error('the adapter gave no answer for this payout') };
        let input: PayoutInput;
        if (answer.status === 'fulfilled') input = inputOf(answer.value);
        else {
          log.warn({ err: answer.reason, payoutId, adapter: adapterName }, 'payout send failed; retrying with back-off');
          input = { type: 'send_error', message: answer.reason instanceof Error ? answer.reason.message : String(answer.reason) };
        }
        const outcome = await inTransaction(db, (trx) => applyPayoutInput(trx, { now: clock.now(), ledger }, payoutId, input, lease));
        if (outcome.outcome === 'unchanged' && input.type === 'broadcast' && outcome.payout.txHash !== input.txHash) {
          log.error({ payoutId, adapter: adapterName, recorded: outcome.payout.txHash, answered: input.txHash }, 'adapter answered another transaction for a payout already sent');
        }
      }
    }
    return claimed.length;
  }

  /** Step 1: due payouts that an adapter can send become `sending`; the others wait. */
  private async claim(trx: Tx, now: Date, lease: Date): Promise<Claimed[]> {
    const due = await claimDuePayouts(trx, now, BATCH);
    const claimed: Claimed[] = [];
    const waiting: PayoutId[] = [];
    for (const payout of due) {
      const ready = await this.sendable(trx, payout);
      if (ready === undefined) waiting.push(payout.id);
      else claimed.push(ready);
    }
    await leasePayouts(trx, claimed.map((item) => item.payoutId), now, lease);
    await postponePayouts(trx, waiting, now, new Date(now.getTime() + NO_ADAPTER_RETRY_MS));
    return claimed;
  }

  private async sendable(trx: Tx, payout: Payout): Promise<Claimed | undefined> {
    const issuance = await findIssuanceById(trx, payout.issuanceId);
    if (issuance === undefined) throw new Error(`payout ${payout.id} has no issuance`);
    const adapter = this.deps.adapters.adapterFor(false, payout.chainId, issuance.family);
    const sendPayout = adapter?.sendPayout;
    const sendPayouts = adapter?.sendPayouts;
    if (adapter === undefined || sendPayout === undefined || issuance.address === null || payout.recipient === null) {
      this.deps.log.warn({ payoutId: payout.id, chainId: payout.chainId }, 'no chain adapter can send this payout yet; retrying later');
      return undefined;
    }
    return {
      payoutId: payout.id,
      adapterName: adapter.name,
      send: (request) => sendPayout.call(adapter, request),
      sendMany: sendPayouts === undefined ? undefined : (requests) => sendPayouts.call(adapter, requests),
      request: {
        payoutId: payout.id,
        issuanceId: issuance.id,
        chainId: payout.chainId,
        family: issuance.family,
        token: payout.token,
        tokenDecimals: payout.tokenDecimals,
        fromAddress: issuance.address,
        recipient: payout.recipient,
        toRecipient: payout.toRecipient,
        toOperator: payout.toOperator,
      },
    };
  }
}

/** The claimed payouts of one adapter that sends several at once go together; the others one by one. */
function groupsOf(claimed: readonly Claimed[]): Claimed[][] {
  const groups: Claimed[][] = [];
  const byAdapter = new Map<string, Claimed[]>();
  for (const item of claimed) {
    if (item.sendMany === undefined) {
      groups.push([item]);
      continue;
    }
    const group = byAdapter.get(item.adapterName);
    if (group === undefined) {
      const fresh = [item];
      byAdapter.set(item.adapterName, fresh);
      groups.push(fresh);
    } else group.push(item);
  }
  return groups;
}

async function sendGroup(group: readonly Claimed[]): Promise<PromiseSettledResult<PayoutBroadcast>[]> {
  const [first] = group;
  if (first !== undefined && group.length > 1 && first.sendMany !== undefined) {
    try {
      return await first.sendMany(group.map((item) => item.request));
    } catch (reason) {
      return group.map(() => ({ status: 'rejected', reason }));
    }
  }
  const answers: PromiseSettledResult<PayoutBroadcast>[] = [];
  for (const item of group) {
    try {
      answers.push({ status: 'fulfilled', value: await item.send(item.request) });
    } catch (reason) {
      answers.push({ status: 'rejected', reason });
    }
  }
  return answers;
}

function inputOf(answer: PayoutBroadcast): PayoutInput {
  switch (answer.kind) {
    case 'broadcast':
      return { type: 'broadcast', txHash: answer.txHash };
    case 'waiting_gas':
      return { type: 'waiting_gas' };
    case 'failed':
      return { type: 'failed', reason: answer.reason };
  }
}
