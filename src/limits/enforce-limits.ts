import type { Expression, RawBuilder } from 'kysely';
import type { NetworkFamily } from '../catalogue/index.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import {
  countActiveDepositAddresses,
  invoiceLimitGateLock,
  lockMerchantLimits,
  selectInvoiceLimitState,
  type InvoiceLimitState,
} from './limits.repository.js';
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

/** What the state read of an invoice creation is for: the merchant, its mode, and the time that decides expiry. */
export interface InvoiceLimitStateValues {
  readonly merchantId: string;
  readonly sandbox: boolean;
  readonly now: Date;
}

/**
 * SPEC "Limits": active invoices per merchant, checked without making every
 * creation of a merchant wait for the one before it.
 *
 * A creation takes the gate in its access read (`lockOn`), then stores its
 * invoice and reads the state (`selectState`) in one later statement, whose
 * snapshot therefore follows the gate. That read misses at most the creations
 * still in flight at that moment — at most one per database connection
 * (max_connections), each adding one active invoice (a group counts once) —
 * and its own invoice, which it adds. Far from the limit (open + own +
 * max_connections ≤ limit) the state is therefore safe under a shared gate,
 * and creations run side by side; the open count there comes from the
 * trigger-kept tallies, which are never below the exact count. Nearer than
 * that, the request runs again from the start under the exclusive gate
 * (`withInvoiceLimitGate`): it waits for every creation in flight to commit,
 * keeps new ones out, and then counts exactly.
 * docs/decisions/0005-active-invoice-limit-gate.md.
 */
export class InvoiceLimitGate {
  constructor(readonly mode: 'shared' | 'exclusive') {}

  /**
   * The gate's lock on the shop's merchant and mode, for the creation's access
   * read to evaluate. One function per gate for the process's life (the read is
   * compiled once per function).
   */
  readonly lockOn = (shop: { readonly merchantId: Expression<string>; readonly sandbox: Expression<boolean> }): RawBuilder<unknown> =>
    invoiceLimitGateLock(shop.merchantId, shop.sandbox, this.mode);

  /**
   * The state to read in the statement that stores the creation's one
   * invoice, as that statement takes it: the SELECT (named by the gate's mode,
   * its only structural difference) and its values. `admit` judges the row.
   */
  stateRead(values: InvoiceLimitStateValues) {
    return { name: this.mode, select: this.#selectState, values };
  }

  readonly #selectState = (executor: Executor, values: InvoiceLimitStateValues) =>
    selectInvoiceLimitState(executor, values.merchantId, values.sandbox, values.now, this.mode);

  admit(state: InvoiceLimitState): void {
    refuseBlocked(state.blocked_reason);
    const limit = activeInvoiceLimit(state.limit_override);
    const withThisOne = Number(state.open ?? 0) + 1;
    if (this.mode === 'exclusive') {
      if (withThisOne > limit) throw new IvoryError('active_invoice_limit_reached');
      return;
    }
    if (withThisOne + Number(state.max_connections) <= limit) return;
    // Thrown so that the transaction rolls back (the invoice is already inserted);
    // `withInvoiceLimitGate` catches exactly this and runs the request again.
    throw new NeedsExclusiveGate();
  }
}

/**
 * A block by operator staff (it locks the merchant FOR UPDATE, then cancels
 * every unpaid invoice) against a creation in flight. The creation's access
 * read holds the merchant FOR KEY SHARE, which conflicts with FOR UPDATE: a
 * block that locked first made that read wait for its commit and see it; a
 * block that came later waits for this creation to commit and then cancels
 * what it made. Either way no unpaid invoice of a blocked merchant survives;
 * this check is the same rule read again where the limits are read.
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
    return await work(SHARED_GATE);
  } catch (error) {
    if (!(error instanceof NeedsExclusiveGate)) throw error;
    return work(EXCLUSIVE_GATE);
  }
}

const SHARED_GATE = new InvoiceLimitGate('shared');
const EXCLUSIVE_GATE = new InvoiceLimitGate('exclusive');

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
