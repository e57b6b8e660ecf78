import type { AppContext } from '../app-context.js';
import type { Job } from '../platform/jobs.js';
import { AllocateAddressesJob } from './allocate-addresses.job.js';

/**
 * Issuance addresses. Allocation (SPEC: registering → open): a worker asks the
 * chain adapter for each new issuance's payment address, outside any
 * transaction. Watching: the allocated live addresses, as chain watchers load them.
 */
export { AllocateAddressesJob } from './allocate-addresses.job.js';
export { listWatchedAddresses, type WatchedIssuanceAddress } from './watched-addresses.repository.js';
export { readAllocationQueue } from './allocation-queue.repository.js';

export function allocationJobs(context: AppContext): Job[] {
  return [new AllocateAddressesJob({ db: context.db, clock: context.clock, adapters: context.chains, log: context.log, ledger: context.ledger })];
}
