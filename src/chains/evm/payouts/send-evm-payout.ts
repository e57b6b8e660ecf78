import type { FastifyBaseLogger } from 'fastify';
import type { PublicClient } from 'viem';
import type { PayoutBroadcast, PayoutRequest } from '../../chain-adapter.js';
import type { EvmNetwork } from '../evm-network.js';
import { findForwarder, type Forwarder } from '../forwarders/index.js';
import { ensureRelayer, noteGasNeeded, type Relayer } from '../relayer/index.js';
import { broadcastRaw } from './broadcast.js';
import { observeAttempt } from './observe-attempt.js';
import { listPayoutTransactions, markBroadcast, moveSiblings, moveTransaction, type PayoutTransaction } from './payout-transactions.repository.js';
import { prepareSweep } from './prepare-sweep.js';
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
  const chainId = deps.network.chainId;
  if (request.chainId !== chainId) return { kind: 'failed', reason: `payout for chain ${request.chainId} sent to the adapter of chain ${chainId}` };
  const forwarder = await findForwarder(deps.db, request.issuanceId);
  if (forwarder === undefined) return { kind: 'failed', reason: `no forwarder was allocated for issuance ${request.issuanceId} on chain ${chainId}` };
  if (forwarder.address.toLowerCase() !== request.fromAddress.toLowerCase()) {
    return { kind: 'failed', reason: `payout address ${request.fromAddress} is not the issuance's forwarder ${forwarder.address}` };
  }
  const relayer = await ensureRelayer(deps.db, deps.secrets, chainId);

  const transactions = await listPayoutTransactions(deps.db, chainId, request.payoutId);
  const live = transactions.find((row) => (LIVE_STATUSES as readonly string[]).includes(row.status));
  if (live !== undefined) {
    const attempt = transactions.filter((row) => row.nonce === live.nonce && row.relayer === live.relayer);
    const answer = await resumeAttempt(deps, attempt);
    if (answer !== 'finished') return answer;
  }
  return sendNewAttempt(deps, request, forwarder, relayer);
}

/** Step 1: the live attempt's fate, or 'finished' when its nonce is used without a sweep (a new attempt may be signed). */
async function resumeAttempt(deps: SendEvmPayoutDeps, attempt: readonly PayoutTransaction[]): Promise<PayoutBroadcast | 'finished'> {
  const first = attempt[0];
  if (first === undefined) return 'finished';
  const observation = await observeAttempt(deps.client, deps.network.confirmations, first.relayer, attempt);
  const now = deps.clock.now();
  switch (observation.kind) {
    case 'mined': {
      const { transaction, minedIn, atDepth } = observation;
      // Succeeded, or not yet at depth (a reorg may still undo a revert): the tracker settles it.
      if (minedIn.success || !atDepth) return { kind: 'broadcast', txHash: transaction.txHash };
      await moveTransaction(deps.db, transaction.id, LIVE_STATUSES, 'failed', now, minedIn);
      await moveSiblings(deps.db, transaction, ['pending', 'mined'], 'replaced', now);
      deps.log.warn({ payoutId: transaction.payoutId, txHash: transaction.txHash }, 'sweep reverted on chain; signing a new attempt');
      return 'finished';
    }
    case 'nonce_taken':
      for (const row of attempt) await moveTransaction(deps.db, row.id, LIVE_STATUSES, 'dropped', now, undefined);
      deps.log.warn({ payoutId: first.payoutId, nonce: first.nonce.toString() }, 'payout nonce used by another transaction; signing a new attempt');
      return 'finished';
    case 'unmined':
      return broadcastStored(deps, rowToBroadcast(attempt) ?? first);
  }
}

/** Steps 2–4. */
async function sendNewAttempt(deps: SendEvmPayoutDeps, request: PayoutRequest, forwarder: Forwarder, relayer: Relayer): Promise<PayoutBroadcast> {
  const plan = await prepareSweep(deps.client, forwarder, relayer.address);
  switch (plan.kind) {
    case 'settled':
      return { kind: 'failed', reason: `forwarder ${forwarder.address} is already settled on chain (swept by its delegate?); nothing left for Ivory to sweep` };
    case 'nothing_to_sweep':
      throw new NothingToSweepError(`forwarder ${forwarder.address} holds ${plan.balance} of token ${forwarder.terms.token}: nothing to sweep yet`);
    case 'waiting_gas':
      deps.log.info({ payoutId: request.payoutId, relayer: relayer.address, needed: plan.needed.toString(), balance: plan.balance.toString() }, 'relayer lacks gas');
      await noteGasNeeded(deps.db, deps.network.chainId, plan.needed, deps.clock.now());
      return { kind: 'waiting_gas' };
    case 'ready':
      break;
  }
  if (plan.toRecipient !== request.toRecipient || plan.toOperator !== request.toOperator) {
    // The contract's split is the truth (it moves the balance at sweep time); the ledger learns it at confirmation.
    deps.log.info(
      { payoutId: request.payoutId, expected: [request.toRecipient.toString(), request.toOperator.toString()], onChain: [plan.toRecipient.toString(), plan.toOperator.toString()] },
      'sweep split differs from the payout (more arrived meanwhile)',
    );
  }
  const signed = await signNewAttempt(
    { db: deps.db, secrets: deps.secrets, clock: deps.clock, chainId: deps.network.chainId, ...(deps.hooks === undefined ? {} : { hooks: deps.hooks }) },
    { payoutId: request.payoutId, to: plan.to, data: plan.data, gasLimit: plan.gasLimit, fees: plan.fees, chainNonce: plan.chainNonce },
  );
  return broadcastStored(deps, signed.transaction);
}

/** The attempt's transaction worth broadcasting: the one seen mined (after a reorg), else the newest pending one. */
export function rowToBroadcast(attempt: readonly PayoutTransaction[]): PayoutTransaction | undefined {
  return attempt.find((row) => row.status === 'mined' || row.status === 'confirmed') ?? attempt.find((row) => row.status === 'pending');
}

/** Broadcasts a stored transaction and answers the worker. A node error is thrown: the next call rebroadcasts. */
async function broadcastStored(deps: SendEvmPayoutDeps, transaction: PayoutTransaction): Promise<PayoutBroadcast> {
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
