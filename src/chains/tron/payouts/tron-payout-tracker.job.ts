import type { Clock } from '../../../platform/clock.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { Job } from '../../../platform/jobs.js';
import type { DriverLog } from '../../family-driver.js';
import type { SweepLedger } from '../../ledger-ports.js';
import type { TronApi } from '../tron-api.js';
import { tronWireAddress } from '../tron-evm-address.js';
import { headBlock, solidBlock, transactionInfo, trxBalance, type TronTransactionInfo } from '../tron-node-reads.js';
import { clearTrxNeeded, findTrxNeeded } from '../tron-relayer.js';
import { broadcastTronTransaction } from './broadcast.js';
import { listOpenTronPayoutTransactions, markTronBroadcast, moveTronPayoutTransaction, type TronPayoutTransaction } from './tron-payout-transactions.repository.js';

export interface TronPayoutTrackerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly api: TronApi;
  readonly chainId: number;
  readonly pollIntervalMs: number;
  readonly ledger: SweepLedger;
  readonly log: DriverLog;
}

/** A stored transaction not seen in a block is sent again at most this often while it can still land. */
const REBROADCAST_EVERY_MS = 15_000;

/**
 * Follows one Tron network's sweep transactions to their fate, and wakes the
 * payouts waiting for TRX once the relayer holds it:
 * - solidified with SUCCESS: payout.confirmed; solidified reverted or out of
 *   energy: sweep.failed (the payout is signed anew, with a larger fee_limit
 *   after OUT_OF_ENERGY);
 * - in a block above the solidified one: landed (a rollback may still drop it;
 *   then it is signed-and-waiting again and sent again while it can land);
 * - in no block, and expired before the solidified block's time: it can never
 *   land (expired): sweep.failed, and the payout may sign anew.
 * Every move is a compare-and-set with the ledger call in one transaction, so
 * two processes tracking the same network do each thing once.
 */
export class TronPayoutTrackerJob implements Job {
  readonly name: string;
  readonly idleMs: number;

  constructor(private readonly deps: TronPayoutTrackerDeps) {
    this.name = `tron-payout-tracker:${deps.chainId}`;
    this.idleMs = Math.max(deps.pollIntervalMs, 500);
  }

  async run(): Promise<number> {
    let done = 0;
    try {
      done += await this.#wakeFunded();
      done += await this.#follow();
    } catch (error) {
      this.deps.log.warn({ err: error, chainId: this.deps.chainId }, 'Tron payout tracker pass failed; trying again next poll');
    }
    return done;
  }

  async #wakeFunded(): Promise<number> {
    const { db, api, chainId, clock, ledger } = this.deps;
    const need = await findTrxNeeded(db, chainId);
    if (need === undefined) return 0;
    const balance = await trxBalance(api, tronWireAddress(need.address));
    if (balance < need.neededSun) return 0;
    return inTransaction(db, async (trx) => ((await clearTrxNeeded(trx, chainId, balance, clock.now())) ? ledger.relayerFunded(trx, clock.now(), { chainId }) : 0));
  }

  async #follow(): Promise<number> {
    const { db, api, chainId } = this.deps;
    const open = await listOpenTronPayoutTransactions(db, chainId);
    if (open.length === 0) return 0;
    const [head, solid] = await Promise.all([headBlock(api), solidBlock(api)]);
    let done = 0;
    for (const transaction of open) {
      const final = await transactionInfo(api, transaction.txId, true);
      if (final !== undefined && final.blockNumber <= solid.number) {
        done += await this.#settle(transaction, final);
        continue;
      }
      const included = await transactionInfo(api, transaction.txId, false);
      if (included !== undefined) {
        if (transaction.status === 'signed' && (await moveTronPayoutTransaction(db, transaction.id, ['signed'], 'landed', this.deps.clock.now(), details(included)))) done += 1;
        continue;
      }
      done += await this.#absent(transaction, head.timestamp, solid.timestamp);
    }
    return done;
  }

  async #settle(transaction: TronPayoutTransaction, info: TronTransactionInfo): Promise<number> {
    const { db, clock, ledger, log } = this.deps;
    const succeeded = info.result === 'SUCCESS';
    const moved = await inTransaction(db, async (trx) => {
      const now = clock.now();
      if (!(await moveTronPayoutTransaction(trx, transaction.id, ['signed', 'landed'], succeeded ? 'confirmed' : 'failed', now, details(info)))) return false;
      if (succeeded) await ledger.confirmPayout(trx, now, { payoutId: transaction.payoutId, txHash: transaction.txId });
      else await ledger.sweepFailed(trx, now, { payoutId: transaction.payoutId, txHash: transaction.txId });
      return true;
    });
    if (moved && !succeeded) log.warn({ payoutId: transaction.payoutId, txId: transaction.txId, result: info.result }, 'Tron sweep failed on chain; the payout signs a new one');
    return moved ? 1 : 0;
  }

  /** In no block: rolled back above the solidified block, never broadcast, dropped, or expired. */
  async #absent(transaction: TronPayoutTransaction, headTime: bigint, solidTime: bigint): Promise<number> {
    const { db, clock, ledger, api } = this.deps;
    const now = clock.now();
    if (transaction.expiration < solidTime) {
      // Proven unable to land: every block from here on is later than its expiration.
      const moved = await inTransaction(db, async (trx) => {
        if (!(await moveTronPayoutTransaction(trx, transaction.id, ['signed', 'landed'], 'expired', now))) return false;
        await ledger.sweepFailed(trx, now, { payoutId: transaction.payoutId, txHash: transaction.txId });
        return true;
      });
      return moved ? 1 : 0;
    }
    let done = 0;
    if (transaction.status === 'landed' && (await moveTronPayoutTransaction(db, transaction.id, ['landed'], 'signed', now))) done += 1;
    // Only what the payout worker broadcast is sent again here: a stored transaction it never
    // sent is its own to send (it reports payout.sent), after a crash or its next attempt.
    const stale = transaction.broadcastAt !== null && (now.getTime() - transaction.broadcastAt.getTime() >= REBROADCAST_EVERY_MS || transaction.status === 'landed');
    if (transaction.expiration >= headTime && stale) {
      const outcome = await broadcastTronTransaction(api, transaction.rawDataHex, transaction.signature).catch(() => undefined);
      if (outcome?.kind === 'accepted' || outcome?.kind === 'known') await markTronBroadcast(db, transaction.id, now);
    }
    return done;
  }
}

function details(info: TronTransactionInfo) {
  return { blockNumber: info.blockNumber, receiptResult: info.result, energyUsed: info.energyUsed, feeSun: info.fee };
}
