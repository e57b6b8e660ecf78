import type { Job } from '../platform/jobs.js';
import { ExpireInvoicesJob } from './expire-invoices.job.js';
import type { IssuancesContext } from './issuances.routes.js';

/** What other modules may use of issuances (payouts, payments, sandbox, checkout, admin, chain watchers). */
export { issuancesRoutes, type IssuancesContext } from './issuances.routes.js';
export { cancelMerchantIssuances } from './cancel-merchant-issuances.js';
export { recordTransfer, type IncomingTransfer, type RecordOutcome } from './record-transfer.js';
export { recordTransfers } from './record-transfers.js';
export { closeInvoiceOnChain } from './close-invoice-on-chain.js';
export { openAllocatedIssuance } from './open-allocated-issuance.js';
export type { IssuancePayout, LedgerDeps, LedgerPorts, PayoutAmounts, PayoutLedger } from './payout-port.js';
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
export function issuanceJobs(context: Pick<IssuancesContext, 'db' | 'clock' | 'ledger'>): Job[] {
  return [new ExpireInvoicesJob({ db: context.db, clock: context.clock, ledger: context.ledger })];
}
