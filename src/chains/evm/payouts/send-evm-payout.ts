import type { FastifyBaseLogger } from 'fastify';
import type { PublicClient } from 'viem';
import type { PayoutBroadcast, PayoutRequest } from '../../chain-adapter.js';
import type { EvmNetwork } from '../evm-network.js';
import { findForwarder, type Forwarder } from '../forwarders/index.js';
import { ensureRelayer, noteGasNeeded, type Relayer } from '../relayer/index.js';
import { broadcastRaw } from './broadcast.js';
import { observeAttempt } from './observe-attempt.js';
import { listPayoutTransactions, markBroadcast, moveSiblings, moveTransaction, type PayoutTransaction } from './payout-transactions.repository.js';
import { inspectSweep, planCall, sweepCallData, type SweepInspection } from './prepare-sweep.js';
import { LIVE_STATUSES, signNewAttempt, type SigningDeps } from './sign-payout-transaction.js';

export type EvmLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export interface SendEvmPayoutDeps extends Omit<SigningDeps, 'chainId'> {
  readonly network: EvmNetwork;
  readonly client: PublicClient;
  readonly log: EvmLog;
}

/**
 * The forwarder holds nothing to sweep yet (empty, or below the invoice's
 * amount or the deposit's minimum sweep): temporary as far as the payout worker knows — a transfer may be
 * in flight, or a reorg being undone — so it is thrown, and the worker tries
 * again with its back-off until its error limit makes the payout failed.
 */
export class NothingToSweepError extends Error {}

/**
 * Sends (or finds again) the sweep of one payout, crash-safe (issue 9 item 5):
 * 1. the payout's live attempt, if any, is the answer: its receipt decides,
 *    else its stored raw transaction is broadcast again — a second one is
 *    never signed while the first one's nonce is not proven used;
 * 2. otherwise, outside any database transaction: re-read the forwarder,
 *    simulate the sweep, estimate gas and fees, check the relayer can pay;
 * 3. sign and store in one database transaction (`signNewAttempt`), commit;
 * 4. broadcast.
 * A crash after 3 leaves a stored transaction that step 1 (or the tracker)
 * broadcasts; a crash before the commit of 3 leaves nothing.
 */
export async function sendEvmPayout(deps: SendEvmPayoutDeps, request: PayoutRequest): Promise<PayoutBroadcast> {
  const found = await forwarderOfRequest(deps, request);
  if ('kind' in found) return found;
  const relayer = await ensureRelayer(deps.db, deps.secrets, deps.network.chainId);
  const resumed = await resumeLiveAttempt(deps, request.payoutId);
  if (resumed !== 'finished') return resumed;
  return sendNewAttempt(deps, request, found.forwarder, relayer);
}

/** The issuance's forwarder, or the terminal answer when the request cannot be this adapter's sweep. */
export async function forwarderOfRequest(deps: SendEvmPayoutDeps, request: PayoutRequest): Promise<{ readonly forwarder: Forwarder } | PayoutBroadcast> {
  const chainId = deps.network.chainId;
  if (request.chainId !== chainId) return { kind: 'failed', reason: `payout for chain ${request.chainId} sent to the adapter of chain ${chainId}` };
  const forwarder = await findForwarder(deps.db, request.issuanceId);
  if (forwarder === undefined) return { kind: 'failed', reason: `no forwarder was allocated for issuance ${request.issuanceId} on chain ${chainId}` };
  if (forwarder.address.toLowerCase() !== request.fromAddress.toLowerCase()) {
    return { kind: 'failed', reason: `payout address ${request.fromAddress} is not the issuance's forwarder ${forwarder.address}` };
  }
  return { forwarder };
}

/** Step 1 for one payout: its live attempt's answer, or 'finished' when it has none (a new attempt may be signed). */
export async function resumeLiveAttempt(deps: SendEvmPayoutDeps, payoutId: string): Promise<PayoutBroadcast | 'finished'> {
  const { live } = await attemptsOf(deps, payoutId);
  return live === undefined ? 'finished' : resumeAttempt(deps, live);
}

/** A payout's transactions (newest first) and its live attempt's, if any: every transaction of that nonce. */
export async function attemptsOf(deps: SendEvmPayoutDeps, payoutId: string): Promise<{ readonly transactions: readonly PayoutTransaction[]; readonly live: readonly PayoutTransaction[] | undefined }> {
  const transactions = await listPayoutTransactions(deps.db, deps.network.chainId, payoutId);
  const newestLive = transactions.find((row) => (LIVE_STATUSES as readonly string[]).includes(row.status));
  const live = newestLive === undefined ? undefined : transactions.filter((row) => row.nonce === newestLive.nonce && row.relayer === newestLive.relayer);
  return { transactions, live };
}

/**
 * The live attempt's fate, or 'finished' when its nonce is used without a sweep (a new attempt may be signed).
 * A batch's attempt that ended so is left to the tracker, which tells every member's
 * payout at once (`sweep.failed`); until then this payout's send is temporary trouble.
 */
export async function resumeAttempt(deps: SendEvmPayoutDeps, attempt: readonly PayoutTransaction[]): Promise<PayoutBroadcast | 'finished'> {
  const first = attempt[0];
  if (first === undefined) return 'finished';
  const observation = await observeAttempt(deps.client, deps.network.confirmations, first.relayer, attempt);
  const now = deps.clock.now();
  const batch = first.payoutIds.length > 1;
  switch (observation.kind) {
    case 'mined': {
      const { transaction, minedIn, atDepth } = observation;
      // Succeeded, or not yet at depth (a reorg may still undo a revert): the tracker settles it.
      if (minedIn.success || !atDepth) return { kind: 'broadcast', txHash: transaction.txHash };
      if (batch) throw new BatchAttemptUnsettledError(transaction.txHash);
      await moveTransaction(deps.db, transaction.id, LIVE_STATUSES, 'failed', now, minedIn);
      await moveSiblings(deps.db, transaction, ['pending', 'mined'], 'replaced', now);
      deps.log.warn({ payoutIds: transaction.payoutIds, txHash: transaction.txHash }, 'sweep reverted on chain; signing a new attempt');
      return 'finished';
    }
    case 'nonce_taken':
      if (batch) throw new BatchAttemptUnsettledError(first.txHash);
      for (const row of attempt) await moveTransaction(deps.db, row.id, LIVE_STATUSES, 'dropped', now, undefined);
      deps.log.warn({ payoutIds: first.payoutIds, nonce: first.nonce.toString() }, 'payout nonce used by another transaction; signing a new attempt');
      return 'finished';
    case 'unmined':
      return broadcastStored(deps, rowToBroadcast(attempt) ?? first);
  }
}

/** A batched sweep failed on chain, or lost its nonce, and the tracker has not told its payouts yet: try again later. */
export class BatchAttemptUnsettledError extends Error {
  constructor(txHash: string) {
    super(`batched sweep ${txHash} failed on chain; waiting for the payout tracker to return its payouts to the queue`);
  }
}

/** Steps 2–4 for one payout alone (`sweep`). */
export async function sendNewAttempt(deps: SendEvmPayoutDeps, request: PayoutRequest, forwarder: Forwarder, relayer: Relayer): Promise<PayoutBroadcast> {
  return sendInspected(deps, request, forwarder, relayer, await inspectSweep(deps.client, forwarder, relayer.address));
}

/** Steps 2–4 for one payout alone, its forwarder already inspected. */
export async function sendInspected(deps: SendEvmPayoutDeps, request: PayoutRequest, forwarder: Forwarder, relayer: Relayer, inspection: SweepInspection): Promise<PayoutBroadcast> {
  if (inspection.kind !== 'sweepable') return answerUnsweepable(forwarder, inspection);
  noteSplit(deps, request, inspection);
  const plan = await planCall(deps.client, forwarder.factory, sweepCallData([forwarder]), relayer.address);
  if (plan.kind === 'waiting_gas') return waitForGas(deps, [request.payoutId], relayer, plan);
  const signed = await signNewAttempt(signingDeps(deps), { payoutIds: [request.payoutId], ...plan });
  return broadcastStored(deps, signed.transaction);
}

/** What the worker hears about a forwarder with nothing for Ivory to sweep. */
export function answerUnsweepable(forwarder: Forwarder, inspection: Exclude<SweepInspection, { kind: 'sweepable' }>): PayoutBroadcast {
  if (inspection.kind === 'settled') {
    return { kind: 'failed', reason: `forwarder ${forwarder.address} is already settled on chain (swept by its delegate?); nothing left for Ivory to sweep` };
  }
  throw new NothingToSweepError(`forwarder ${forwarder.address} holds ${inspection.balance} of token ${forwarder.terms.token}: nothing to sweep yet`);
}

/** The contract's split is the truth (it moves the balance at sweep time); the ledger learns it at confirmation. */
export function noteSplit(deps: SendEvmPayoutDeps, request: PayoutRequest, inspection: { readonly toRecipient: bigint; readonly toOperator: bigint }): void {
  if (inspection.toRecipient === request.toRecipient && inspection.toOperator === request.toOperator) return;
  deps.log.info(
    { payoutId: request.payoutId, expected: [request.toRecipient.toString(), request.toOperator.toString()], onChain: [inspection.toRecipient.toString(), inspection.toOperator.toString()] },
    'sweep split differs from the payout (more arrived meanwhile)',
  );
}

/** The relayer cannot pay: the need is noted (the tracker watches the balance) and the payouts wait (`gas.wait`). */
export async function waitForGas(deps: SendEvmPayoutDeps, payoutIds: readonly string[], relayer: Relayer, plan: { readonly needed: bigint; readonly balance: bigint }): Promise<PayoutBroadcast> {
  deps.log.info({ payoutIds, relayer: relayer.address, needed: plan.needed.toString(), balance: plan.balance.toString() }, 'relayer lacks gas');
  await noteGasNeeded(deps.db, deps.network.chainId, plan.needed, deps.clock.now());
  return { kind: 'waiting_gas' };
}

export function signingDeps(deps: SendEvmPayoutDeps): SigningDeps {
  return { db: deps.db, secrets: deps.secrets, clock: deps.clock, chainId: deps.network.chainId, ...(deps.hooks === undefined ? {} : { hooks: deps.hooks }) };
}

/** The attempt's transaction worth broadcasting: the one seen mined (after a reorg), else the newest pending one. */
export function rowToBroadcast(attempt: readonly PayoutTransaction[]): PayoutTransaction | undefined {
  return attempt.find((row) => row.status === 'mined' || row.status === 'confirmed') ?? attempt.find((row) => row.status === 'pending');
}

/** Broadcasts a stored transaction and answers the worker. A node error is thrown: the next call rebroadcasts. */
export async function broadcastStored(deps: SendEvmPayoutDeps, transaction: PayoutTransaction): Promise<PayoutBroadcast> {
  const outcome = await broadcastRaw(deps.client, transaction.rawTransaction);
  switch (outcome) {
    case 'accepted':
    case 'known':
      await markBroadcast(deps.db, transaction.id, deps.clock.now());
      return { kind: 'broadcast', txHash: transaction.txHash };
    case 'nonce_used':
    case 'underpriced':
      // Ours mined, a fee bump of ours is in the pool, or another took the nonce: the tracker tells which.
      return { kind: 'broadcast', txHash: transaction.txHash };
    case 'insufficient_funds':
      await noteGasNeeded(deps.db, deps.network.chainId, transaction.gasLimit * transaction.maxFeePerGas, deps.clock.now());
      return { kind: 'waiting_gas' };
  }
}
