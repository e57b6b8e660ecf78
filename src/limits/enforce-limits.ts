import type { AliasableExpression } from 'kysely';
import type { NetworkFamily } from '../catalogue/index.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { countActiveDepositAddresses, invoiceLimitGateLock, lockMerchantLimits, readInvoiceLimitState } from './limits.repository.js';
import { activeInvoiceLimit, depositAddressLimit } from './limits.js';

/**
 * SPEC "Limits". The merchant row is locked (FOR UPDATE) and held to commit,
 * and only then counted, so two concurrent creations cannot both see room for
 * one. `enforceDepositAddressLimit` counts `wanted` on top of what is stored,
 * unless `alreadyStored` says the caller has stored it in this transaction —
 * creation does that, so the lock is taken as late as possible and other
 * creations of the merchant wait the least.
 */

/** Takes the merchant lock early, for use cases that must read state only after holding it. */
export async function lockMerchantForLimits(trx: Tx, merchantId: string): Promise<void> {
  if ((await lockMerchantLimits(trx, merchantId)) === undefined) throw new Error(`merchant ${merchantId} vanished`);
}

/**
 * SPEC "Limits": active invoices per merchant, checked without making every
 * creation of a merchant wait for the one before it.
 *
 * Every creation inserts its invoice first and only then counts, so a count
 * misses at most the creations still in flight at that moment — at most one
 * per database connection (max_connections), each adding one active invoice
 * (a group counts once). Far from the limit (active + max_connections ≤
 * limit) the count is therefore safe under a shared gate, and creations run
 * side by side. Nearer than that, the request runs again from the start
 * under the exclusive gate (`withInvoiceLimitGate`): it waits for every
 * creation in flight to commit, keeps new ones out, and then counts exactly.
 * docs/decisions/0005-active-invoice-limit-gate.md.
 */
export class InvoiceLimitGate {
  constructor(readonly mode: 'shared' | 'exclusive') {}

  /**
   * Runs `insertCounted`, the statement that stores what this creation adds
   * to the count, which must evaluate `gateLock` in its RETURNING: the gate is
   * then taken once the row is in, in the same round trip. Then counts under
   * the gate, in a statement of its own: a statement's snapshot predates any
   * wait on a lock it takes, so a count in the lock's statement could miss the
   * creations it waited for.
   */
  async admit(trx: Tx, merchantId: string, sandbox: boolean, now: Date, insertCounted: (gateLock: InvoiceLimitGateLock) => Promise<void>): Promise<void> {
    await insertCounted(invoiceLimitGateLock(merchantId, sandbox, this.mode));
    const state = await readInvoiceLimitState(trx, merchantId, sandbox, now);
    refuseBlocked(state.blockedReason);
    const limit = activeInvoiceLimit(state.limitOverride);
    if (this.mode === 'exclusive') {
      if (state.active > limit) throw new IvoryError('active_invoice_limit_reached');
      return;
    }
    if (state.active + state.maxConcurrentTransactions <= limit) return;
    // Thrown so that the transaction rolls back (the invoice is already inserted);
    // `withInvoiceLimitGate` catches exactly this and runs the request again.
    throw new NeedsExclusiveGate();
  }
}

/** The gate's lock, as an expression the insert it follows evaluates (`InvoiceLimitGate.admit`). */
export type InvoiceLimitGateLock = AliasableExpression<unknown>;

/**
 * A block by operator staff that committed while this creation was in flight
 * (the access gate read the merchant earlier). The issuance rows this
 * creation inserted hold FOR KEY SHARE on the merchant, which conflicts with
 * the block's FOR UPDATE: a block that locked the merchant first made the
 * insert wait for its commit, so this later read sees it; a block that came
 * after the insert waits for this creation to commit and then cancels what it
 * made. Either way no unpaid invoice of a blocked merchant survives.
 */
function refuseBlocked(blockedReason: string | null): void {
  if (blockedReason !== null) throw new IvoryError('account_disabled', { reason: blockedReason });
}

class NeedsExclusiveGate extends Error {
  constructor() {
    super('near the active-invoice limit: run again under the exclusive gate');
  }
}

/**
 * Runs a whole request (its transaction included) under the shared gate and,
 * when the count came near the limit, once more from the start under the
 * exclusive one. The explicit retry of the gate; `work` must open its own
 * transaction, so the first run's writes are gone when the second starts.
 */
export async function withInvoiceLimitGate<T>(work: (gate: InvoiceLimitGate) => Promise<T>): Promise<T> {
  try {
    return await work(new InvoiceLimitGate('shared'));
  } catch (error) {
    if (!(error instanceof NeedsExclusiveGate)) throw error;
    return work(new InvoiceLimitGate('exclusive'));
  }
}

export async function enforceDepositAddressLimit(
  trx: Tx,
  merchantId: string,
  sandbox: boolean,
  wanted: ReadonlyMap<NetworkFamily, number>,
  alreadyStored = false,
): Promise<void> {
  const limits = await lockMerchantLimits(trx, merchantId);
  if (limits === undefined) throw new Error(`merchant ${merchantId} vanished`);
  refuseBlocked(limits.blockedReason);
  for (const [family, count] of wanted) {
    const active = await countActiveDepositAddresses(trx, merchantId, sandbox, family);
    if (active + (alreadyStored ? 0 : count) > depositAddressLimit(limits.depositAddressLimits, family)) {
      throw new IvoryError('deposit_address_limit_reached', { family });
    }
  }
}
