import type { FastifyBaseLogger } from 'fastify';
import type { ChainAdapters } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import { openAllocatedIssuance, type LedgerPorts } from '../issuances/index.js';
import { leaseDueAllocations, postponeAllocation, type AllocationLease } from './allocation.repository.js';

export interface AllocateAddressesDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly adapters: ChainAdapters;
  readonly log: FastifyBaseLogger;
  readonly ledger: LedgerPorts;
}

const BATCH = 50;
/** A growing back-off: 30 s per attempt made, at most 15 minutes. */
const LEASE: AllocationLease = { stepMs: 30_000, maxMs: 15 * 60_000 };

/**
 * Gives `registering` issuances their payment address (SPEC: registering →
 * open). Three steps so that no transaction is held across the adapter call
 * (ARCHITECTURE): lease due rows and commit; ask the adapter; store the address
 * and `open` if the row is still registering. Adapters answer the same address
 * when asked twice, so a lease that ran out mid-way does no harm. An adapter
 * whose address needs the chain first answers `pending` instead of waiting: the
 * row is asked again shortly, and the others in the batch are not held up.
 */
export class AllocateAddressesJob implements Job {
  readonly name = 'allocate-addresses';
  // Clients poll for the address right after creating (SPEC Rule 4): keep the
  // wait short. An idle poll is one indexed query on a partial index.
  readonly idleMs = 250;

  constructor(private readonly deps: AllocateAddressesDeps) {}

  async run(): Promise<number> {
    const { db, clock, adapters, log, ledger } = this.deps;
    const now = clock.now();
    const leased = await inTransaction(db, (trx) => leaseDueAllocations(trx, now, LEASE, BATCH));
    let allocated = 0;
    for (const issuance of leased) {
      const adapter = adapters.adapterFor(issuance.sandbox, issuance.chainId, issuance.family);
      if (adapter === undefined) {
        log.warn({ issuanceId: issuance.id, chainId: issuance.chainId }, 'no chain adapter for a registering issuance; retrying later');
        continue;
      }
      let address: Awaited<ReturnType<typeof adapter.allocateAddress>>;
      try {
        address = await adapter.allocateAddress({
          issuanceId: issuance.id,
          chainId: issuance.chainId,
          family: issuance.family,
          kind: issuance.kind,
          token: issuance.token,
          // The terms a forwarder commits (docs/decisions/0007); a deposit's minimum sweep is the adapter's to add.
          recipient: issuance.recipient ?? undefined,
          delegate: issuance.delegate,
          amount: issuance.kind === 'invoice' ? issuance.amount : null,
          tokenDecimals: issuance.tokenDecimals,
          feeBps: issuance.feeTerms.bps,
          feeMinimum: issuance.feeTerms.minimum,
          feeMaximum: issuance.feeTerms.maximum,
        });
      } catch (error) {
        log.warn({ err: error, issuanceId: issuance.id, adapter: adapter.name }, 'address allocation failed; retrying after its lease');
        continue;
      }
      if (typeof address !== 'string') {
        const retryAt = new Date(clock.now().getTime() + address.retryInMs);
        await inTransaction(db, (trx) => postponeAllocation(trx, issuance.id, retryAt));
        continue;
      }
      const opened = address;
      const stored = await inTransaction(db, async (trx) => openAllocatedIssuance(trx, { now: clock.now(), ledger }, issuance.id, opened));
      if (stored) allocated += 1;
    }
    return allocated;
  }
}
