import { signature as toSignature } from '@solana/kit';
import type { Clock } from '../../../platform/clock.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { Job } from '../../../platform/jobs.js';
import type { DriverLog } from '../../family-driver.js';
import type { SweepLedger } from '../../ledger-ports.js';
import { clearLamportsNeeded, findLamportsNeeded } from '../solana-keys.js';
import { blockHeights, bounded, lamportsOf, sendSigned, signatureStates, type SignatureState, type SolanaRpc } from '../solana-rpc.js';
import { listOpenSolanaPayoutTransactions, markSolanaBroadcast, moveSolanaPayoutTransaction, type SolanaPayoutTransaction } from './solana-payout-transactions.repository.js';

export interface SolanaPayoutTrackerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly rpc: SolanaRpc;
  readonly chainId: number;
  readonly pollIntervalMs: number;
  readonly ledger: SweepLedger;
  readonly log: DriverLog;
}

/** A stored transaction not seen in a block is sent again at most this often while it can still land. */
const RESEND_EVERY_MS = 2_000;

/**
 * Follows one Solana network's sweep transactions to their fate, and wakes
 * the payouts waiting for SOL once the relayer holds it:
 * - finalized without error: payout.confirmed (the invoice closes);
 *   finalized with an error: sweep.failed (the payout signs anew);
 * - seen but not finalized: landed (a rollback may still drop it; then it is
 *   signed-and-waiting again, and sent again while its blockhash is valid);
 * - in no block, and its `lastValidBlockHeight` below the finalized block
 *   height: it can never land (expired): sweep.failed.
 * Every move is a compare-and-set with the ledger call in one transaction.
 */
export class SolanaPayoutTrackerJob implements Job {
  readonly name: string;
  readonly idleMs: number;

  constructor(private readonly deps: SolanaPayoutTrackerDeps) {
    this.name = `solana-payout-tracker:${deps.chainId}`;
    this.idleMs = Math.max(deps.pollIntervalMs, 50);
  }

  async run(): Promise<number> {
    let done = 0;
    try {
      done += await this.#wakeFunded();
      done += await this.#follow();
    } catch (error) {
      this.deps.log.warn({ err: error, chainId: this.deps.chainId }, 'Solana payout tracker pass failed; trying again next poll');
    }
    return done;
  }

  async #wakeFunded(): Promise<number> {
    const { db, rpc, chainId, clock, ledger } = this.deps;
    const need = await findLamportsNeeded(db, chainId);
    if (need === undefined) return 0;
    const balance = await lamportsOf(rpc, need.address);
    if (balance < need.lamports) return 0;
    return inTransaction(db, async (trx) => ((await clearLamportsNeeded(trx, chainId, balance, clock.now())) ? ledger.relayerFunded(trx, clock.now(), { chainId }) : 0));
  }

  async #follow(): Promise<number> {
    const { db, rpc, chainId } = this.deps;
    const open = await listOpenSolanaPayoutTransactions(db, chainId);
    if (open.length === 0) return 0;
    // Heights before statuses: a transaction absent now was absent at a final height at least this high.
    const heights = await blockHeights(rpc);
    const states = await signatureStates(
      rpc,
      open.map((transaction) => transaction.signature),
    );
    let done = 0;
    for (const [index, transaction] of open.entries()) {
      const state = states[index] ?? null;
      if (state?.finalized === true) done += await this.#settle(transaction, state);
      else if (state !== null) {
        if (transaction.status === 'signed' && (await moveSolanaPayoutTransaction(db, transaction.id, ['signed'], 'landed', this.deps.clock.now()))) done += 1;
      } else done += await this.#absent(transaction, heights);
    }
    return done;
  }

  async #settle(transaction: SolanaPayoutTransaction, state: SignatureState): Promise<number> {
    const { db, clock, ledger, log, rpc } = this.deps;
    const found = await rpc
      .getTransaction(toSignature(transaction.signature), { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send(bounded())
      .catch(() => null);
    const details = { slot: state.slot, feeLamports: found?.meta?.fee ?? null, error: state.failed ? JSON.stringify(found?.meta?.err ?? 'failed', (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) : null };
    const moved = await inTransaction(db, async (trx) => {
      const now = clock.now();
      if (!(await moveSolanaPayoutTransaction(trx, transaction.id, ['signed', 'landed'], state.failed ? 'failed' : 'confirmed', now, details))) return false;
      if (state.failed) await ledger.sweepFailed(trx, now, { payoutId: transaction.payoutId, txHash: transaction.signature });
      else await ledger.confirmPayout(trx, now, { payoutId: transaction.payoutId, txHash: transaction.signature });
      return true;
    });
    if (moved && state.failed) log.warn({ payoutId: transaction.payoutId, signature: transaction.signature, error: details.error }, 'Solana sweep failed on chain; the payout signs a new one');
    return moved ? 1 : 0;
  }

  /** In no block: rolled back before finalized, never broadcast, dropped, or expired. */
  async #absent(transaction: SolanaPayoutTransaction, heights: { readonly head: bigint; readonly final: bigint }): Promise<number> {
    const { db, clock, ledger, rpc } = this.deps;
    const now = clock.now();
    if (transaction.lastValidBlockHeight < heights.final) {
      // Proven unable to land: every block from here on is above its blockhash's last valid height.
      const moved = await inTransaction(db, async (trx) => {
        if (!(await moveSolanaPayoutTransaction(trx, transaction.id, ['signed', 'landed'], 'expired', now))) return false;
        await ledger.sweepFailed(trx, now, { payoutId: transaction.payoutId, txHash: transaction.signature });
        return true;
      });
      return moved ? 1 : 0;
    }
    let done = 0;
    if (transaction.status === 'landed' && (await moveSolanaPayoutTransaction(db, transaction.id, ['landed'], 'signed', now))) done += 1;
    const stale = transaction.broadcastAt === null || now.getTime() - transaction.broadcastAt.getTime() >= RESEND_EVERY_MS || transaction.status === 'landed';
    if (transaction.lastValidBlockHeight >= heights.head && stale) {
      const sent = await sendSigned(rpc, transaction.wireBase64).then(
        () => true,
        () => false,
      );
      if (sent) await markSolanaBroadcast(db, transaction.id, now);
    }
    return done;
  }
}
