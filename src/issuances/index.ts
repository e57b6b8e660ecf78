import type { AppContext } from '../app-context.js';
import type { Job } from '../platform/jobs.js';
import { ExpireInvoicesJob } from './expire-invoices.job.js';

/** What other modules may use of issuances (payouts, payments, sandbox, checkout, admin, chain watchers). */
export { issuancesRoutes } from './issuances.routes.js';
export { cancelMerchantIssuances } from './cancel-merchant-issuances.js';
export { recordTransfer, type IncomingTransfer, type RecordOutcome } from './record-transfer.js';
export { recordTransfers } from './record-transfers.js';
export { closeInvoiceOnChain } from './close-invoice-on-chain.js';
export { openAllocatedIssuance } from './open-allocated-issuance.js';
export { connectPayoutLedger, type IssuancePayout, type PayoutAmounts, type PayoutLedger } from './payout-port.js';
export { groupStatus, paymentUrl, type GroupView, type IssuanceView } from './issuance-view.js';
export { issuanceEventData } from './event-data.js';
export { findGroupById, findIssuanceById, findShopGroup, findShopIssuance, lockIssuance } from './issuances.repository.js';
export { issuanceEntry } from './issuance.js';
export { toGroup, toIssuance } from './issuances.repository.js';
export { findTransferByConfirmedEvent, listPayoutTransferIds } from './transfers.repository.js';
export type {
  CancelReason,
  Issuance,
  IssuanceEntry,
  IssuanceGroup,
  IssuanceKind,
  IssuanceStatus,
  Transfer,
  TransferDisposition,
  TransferStatus,
} from './issuance.js';

/** The module's worker: invoice expiry. */
export function issuanceJobs(context: AppContext): Job[] {
  return [new ExpireInvoicesJob({ db: context.db, clock: context.clock })];
}
