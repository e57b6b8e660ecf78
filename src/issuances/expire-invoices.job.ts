import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import { cancelInvoice, cancelInvoiceGroup } from './close-issuances.js';
import { listDueGroupExpiries, listDueInvoiceExpiries } from './issuances.repository.js';
import type { LedgerPorts } from './payout-port.js';

const BATCH = 100;

/**
 * SPEC "States and transitions": an unpaid invoice whose `expires_at` has
 * passed gets `cancelled_at` and `invoice.cancelled` with reason `expired`; a
 * group expires as one (an event per option); deposits never expire. Each
 * invoice in its own transaction, re-checked under its lock, so a payment that
 * lands at the same moment wins or loses cleanly and two workers do no double work.
 */
export class ExpireInvoicesJob implements Job {
  readonly name = 'expire-invoices';
  readonly idleMs = 5_000;

  constructor(private readonly deps: { readonly db: Db; readonly clock: Clock; readonly ledger: LedgerPorts }) {}

  async run(): Promise<number> {
    const { db, clock, ledger } = this.deps;
    const now = clock.now();
    let expired = 0;
    for (const id of await listDueInvoiceExpiries(db, now, BATCH)) {
      if ((await inTransaction(db, (trx) => cancelInvoice(trx, { now, ledger }, id, 'expired'))) === 'closed') expired += 1;
    }
    for (const id of await listDueGroupExpiries(db, now, BATCH)) {
      if ((await inTransaction(db, (trx) => cancelInvoiceGroup(trx, { now, ledger }, id, 'expired'))) === 'closed') expired += 1;
    }
    return expired;
  }
}
