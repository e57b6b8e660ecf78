import { getAddress, type PublicClient } from 'viem';
import type { Clock } from '../../../platform/clock.js';
import { newId, type SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db, type Tx } from '../../../platform/database/database.js';
import type { Job } from '../../../platform/jobs.js';
import type { EvmNetwork } from '../evm-network.js';
import type { SweepLedger } from '../../ledger-ports.js';
import { claimTrackerLease, clearGasNeeded, findGasNeeded, releaseTrackerLease } from '../relayer/index.js';
import { broadcastRaw } from './broadcast.js';
import { observeAttempt } from './observe-attempt.js';
import {
  listAttempt,
  listPayoutTransactions,
  listTrackedTransactions,
  markBroadcast,
  moveSiblings,
  moveTransaction,
  type PayoutTransaction,
} from './payout-transactions.repository.js';
import { rowToBroadcast, type EvmLog } from './send-evm-payout.js';
import { bumpedFees, feesOf, marketFees } from './gas-pricing.js';
import { LIVE_STATUSES, signReplacement, type SigningHooks } from './sign-payout-transaction.js';

export interface PayoutTrackerTuning {
  /** A transaction unmined this long after its signature, next in line for its nonce, gets a fee bump. */
  readonly bumpAfterMs: number;
  /** A pending transaction is broadcast again this often (nodes drop what they held; a crash may have kept it from being sent). */
  readonly rebroadcastAfterMs: number;
  /** Confirmed sweeps stay watched this many blocks past their depth, for reorgs. */
  readonly reorgWatchBlocks: number;
  /** Fee bumps per nonce at most; past it the attempt waits for the operator (or the network). */
  readonly maxBumps: number;
}

export const DEFAULT_TRACKER_TUNING: PayoutTrackerTuning = { bumpAfterMs: 90_000, rebroadcastAfterMs: 30_000, reorgWatchBlocks: 64, maxBumps: 10 };

export interface PayoutTrackerDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly network: EvmNetwork;
  readonly client: PublicClient;
  readonly ledger: SweepLedger;
  readonly log: EvmLog;
  readonly tuning?: Partial<PayoutTrackerTuning>;
  readonly hooks?: SigningHooks;
}

/** One process tracks a network's payouts at a time (released after each run); a dead one's lease runs out after this. */
const TRACKER_LEASE_MS = 30_000;
const BATCH = 200;

/**
 * Follows the relayer's payout transactions until they are settled (issue 9
 * item 5), one network per job:
 * - mined and successful at depth → `confirmPayout`; reverted at depth →
 *   `sweepFailed` (the nonce is used, so the payout may be signed anew);
 * - its nonce used at depth by a transaction that is none of ours → `sweepFailed`;
 * - unmined: rebroadcast now and then; next in line and unmined for a while →
 *   a fee bump (same nonce, fees ≥ +12.5%), stored before it is sent;
 * - a reorg: before confirmation the transaction is pending again and is
 *   rebroadcast; after confirmation → `revertPayout`, and the same signed
 *   transaction is rebroadcast (its nonce is free again), which redoes the payout;
 *   a node whose head is below the sweep's block is behind, not proof of a
 *   reorg: nothing is decided until it is past that block again.
 * Ledger calls and the transaction row's new status commit together. No
 * transaction is held across an RPC call. Returns the number of state changes.
 */
export class EvmPayoutTracker implements Job {
  readonly name: string;
  readonly idleMs: number;
  readonly #owner = newId();
  readonly #tuning: PayoutTrackerTuning;

  constructor(private readonly deps: PayoutTrackerDeps) {
    this.name = `evm-payout-tracker-${deps.network.chainId}`;
    this.idleMs = Math.max(deps.network.pollIntervalMs, 500);
    this.#tuning = { ...DEFAULT_TRACKER_TUNING, ...deps.tuning };
  }

  async run(): Promise<number> {
    const { db, clock, network } = this.deps;
    const now = clock.now();
    if (!(await claimTrackerLease(db, network.chainId, this.#owner, now, new Date(now.getTime() + TRACKER_LEASE_MS)))) return 0;
    try {
      return (await this.noticeFunding()) + (await this.trackAll());
    } finally {
      await releaseTrackerLease(db, network.chainId, this.#owner);
    }
  }

  /**
   * Payouts parked in gas.wait go out within one poll of the relayer being
   * funded (issue 22 item 2): while a need is noted, the balance is read each
   * round, and once it covers the need the ledger makes them due at once.
   * No need noted: no RPC call.
   */
  private async noticeFunding(): Promise<number> {
    const { db, clock, network, client, ledger } = this.deps;
    const waiting = await findGasNeeded(db, network.chainId);
    if (waiting === undefined) return 0;
    const balance = await client.getBalance({ address: getAddress(waiting.address), blockTag: 'latest' });
    if (balance < waiting.neededWei) return 0;
    return inTransaction(db, async (trx) => {
      if (!(await clearGasNeeded(trx, network.chainId, balance, clock.now()))) return 0;
      return ledger.relayerFunded(trx, clock.now(), { chainId: network.chainId });
    });
  }

  private async trackAll(): Promise<number> {
    const { db, network, client, log } = this.deps;
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const watchFrom = head - BigInt(network.confirmations + this.#tuning.reorgWatchBlocks);
    const tracked = await listTrackedTransactions(db, network.chainId, watchFrom > 0n ? watchFrom : 0n, BATCH);
    const attempts = new Map<string, PayoutTransaction>();
    for (const row of tracked) attempts.set(`${row.relayer}:${row.nonce}`, row);
    let changes = 0;
    for (const row of attempts.values()) {
      try {
        changes += await this.track(row);
      } catch (error) {
        log.warn({ err: error, payoutIds: row.payoutIds, nonce: row.nonce.toString(), chainId: network.chainId }, 'payout transaction tracking failed; retrying next round');
      }
    }
    return changes;
  }

  /**
   * One attempt: every transaction signed for `sample`'s nonce. A batch's
   * payouts share its fate: each member is told in the same database
   * transaction as the row's new status, in the batch's order.
   */
  private async track(sample: PayoutTransaction): Promise<number> {
    const { db, clock, network, client, ledger } = this.deps;
    const attempt = await listAttempt(db, network.chainId, sample.relayer, sample.nonce);
    const observation = await observeAttempt(client, network.confirmations, sample.relayer, attempt);
    const now = clock.now();
    const payoutIds = sample.payoutIds;
    const revertAll = async (trx: Tx) => {
      for (const payoutId of payoutIds) await ledger.revertPayout(trx, now, { payoutId });
    };

    if (observation.kind === 'mined') {
      const { transaction, minedIn, atDepth } = observation;
      if (transaction.status === 'confirmed') {
        if (transaction.minedBlockHash === minedIn.blockHash) return 0;
        // Moved to another block past its depth: still a success → keep it; now a revert → the confirmation was wrong.
        if (minedIn.success) return (await moveTransaction(db, transaction.id, ['confirmed'], 'confirmed', now, minedIn)) ? 1 : 0;
        return inTransaction(db, async (trx) => {
          if (!(await moveTransaction(trx, transaction.id, ['confirmed'], 'mined', now, minedIn))) return 0;
          await revertAll(trx);
          return 1;
        });
      }
      if (!atDepth) {
        if (transaction.status === 'mined' && transaction.minedBlockHash === minedIn.blockHash) return 0;
        return inTransaction(db, async (trx) => {
          if (!(await moveTransaction(trx, transaction.id, ['pending', 'mined', 'replaced', 'dropped'], 'mined', now, minedIn))) return 0;
          await moveSiblings(trx, transaction, ['pending', 'mined'], 'replaced', now);
          return 1;
        });
      }
      const latest = minedIn.success ? payoutIds : await this.stillOnAttempt(transaction);
      return inTransaction(db, async (trx) => {
        const to = minedIn.success ? 'confirmed' : 'failed';
        if (!(await moveTransaction(trx, transaction.id, ['pending', 'mined', 'replaced', 'dropped'], to, now, minedIn))) return 0;
        await moveSiblings(trx, transaction, ['pending', 'mined'], 'replaced', now);
        for (const payoutId of latest) {
          if (minedIn.success) await ledger.confirmPayout(trx, now, { payoutId, txHash: transaction.txHash });
          else await ledger.sweepFailed(trx, now, { payoutId, txHash: transaction.txHash });
        }
        return 1;
      });
    }

    if (observation.kind === 'nonce_taken') {
      const wasConfirmed = attempt.some((row) => row.status === 'confirmed');
      const newest = attempt[0] ?? sample;
      const latest = await this.stillOnAttempt(newest);
      return inTransaction(db, async (trx) => {
        let moved = false;
        for (const row of attempt) moved = (await moveTransaction(trx, row.id, LIVE_STATUSES, 'dropped', now, undefined)) || moved;
        if (!moved) return 0;
        if (wasConfirmed) await revertAll(trx);
        else for (const payoutId of latest) await ledger.sweepFailed(trx, now, { payoutId, txHash: newest.txHash });
        return 1;
      });
    }

    // Unmined. Seen in a block before: a reorg took it away; it is pending again and goes out again.
    const seen = attempt.find((row) => row.status === 'mined' || row.status === 'confirmed');
    if (seen !== undefined && seen.minedBlockNumber !== null && observation.head < seen.minedBlockNumber) {
      // The node's head is below the block the sweep was seen in: a node that lags (restarted,
      // a stale backend) looks exactly like this, and its missing receipt proves nothing. Only a
      // node at or past that height without the receipt shows the sweep gone (decision 0025).
      // Sending the same signed transaction again is harmless either way, and speeds up a
      // real reorg's redo while the sweep was never reported to the ledger.
      if (seen.status === 'mined') await this.broadcast(seen, 'node behind the sweep block');
      return 0;
    }
    if (seen !== undefined) {
      const changed = await inTransaction(db, async (trx) => {
        if (!(await moveTransaction(trx, seen.id, ['mined', 'confirmed'], 'pending', now, null))) return 0;
        if (seen.status === 'confirmed') await revertAll(trx);
        return 1;
      });
      await this.broadcast(seen, 'reorged');
      return changed;
    }
    const newest = rowToBroadcast(attempt);
    if (newest === undefined) return 0;
    const age = now.getTime() - newest.createdAt.getTime();
    if (observation.nextNonce === newest.nonce && age >= this.#tuning.bumpAfterMs && newest.replacement < this.#tuning.maxBumps) {
      if (await this.bump(newest)) return 1;
    }
    if (newest.broadcastAt === null || now.getTime() - newest.broadcastAt.getTime() >= this.#tuning.rebroadcastAfterMs) {
      await this.broadcast(newest, 'rebroadcast');
    }
    return 0;
  }

  /** The attempt's payouts still on it: signals about an older attempt are stale for a payout that moved on to a newer nonce. */
  private async stillOnAttempt(transaction: PayoutTransaction): Promise<string[]> {
    const still: string[] = [];
    for (const payoutId of transaction.payoutIds) {
      const [newest] = await listPayoutTransactions(this.deps.db, this.deps.network.chainId, payoutId);
      if (newest === undefined || newest.nonce === transaction.nonce) still.push(payoutId);
    }
    return still;
  }

  /** Signs and sends a replacement of `previous` with fees at least 12.5% higher, if the relayer can pay for it. */
  private async bump(previous: PayoutTransaction): Promise<boolean> {
    const { client, log, network } = this.deps;
    const fees = bumpedFees(feesOf(previous), await marketFees(client));
    const balance = await client.getBalance({ address: previous.relayer });
    if (balance < previous.gasLimit * fees.maxFeePerGas) {
      log.warn({ payoutIds: previous.payoutIds, relayer: previous.relayer, chainId: network.chainId }, 'relayer cannot pay a fee bump; rebroadcasting as is');
      return false;
    }
    const replacement = await signReplacement(
      { db: this.deps.db, secrets: this.deps.secrets, clock: this.deps.clock, chainId: network.chainId, ...(this.deps.hooks === undefined ? {} : { hooks: this.deps.hooks }) },
      previous,
      fees,
    );
    if (replacement === undefined) return false;
    log.info({ payoutIds: previous.payoutIds, nonce: previous.nonce.toString(), replaced: previous.txHash, txHash: replacement.txHash }, 'payout fee bumped');
    await this.broadcast(replacement, 'fee bump');
    return true;
  }

  private async broadcast(transaction: PayoutTransaction, why: string): Promise<void> {
    const { client, clock, db, log } = this.deps;
    try {
      const outcome = await broadcastRaw(client, transaction.rawTransaction);
      if (outcome === 'accepted' || outcome === 'known') await markBroadcast(db, transaction.id, clock.now());
      else log.info({ payoutIds: transaction.payoutIds, txHash: transaction.txHash, outcome, why }, 'payout transaction not taken by the node');
    } catch (error) {
      log.warn({ err: error, payoutIds: transaction.payoutIds, txHash: transaction.txHash, why }, 'payout broadcast failed; retrying later');
    }
  }
}
