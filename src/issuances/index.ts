import type { AppContext } from '../platform/context.js';
import type { Job } from '../platform/jobs.js';
import { AllocateAddressesJob } from './allocate-addresses.job.js';
import { ExpireInvoicesJob } from './expire-invoices.job.js';
import { SendPayoutsJob } from './send-payouts.job.js';

/** What other modules may use of issuances (checkout, payments, admin, chain watchers). */
export { issuancesRoutes } from './issuances.routes.js';
export { cancelMerchantIssuances } from './cancel-merchant-issuances.js';
export { recordTransfer, type IncomingTransfer, type RecordOutcome } from './record-transfer.js';
export { closeInvoiceOnChain } from './close-invoice-on-chain.js';
export { confirmPayout } from './confirm-payout.js';
export { revertPayout } from './revert-payout.js';
export type { PayoutOutcome } from './apply-payout-input.js';
export { groupStatus, groupView, issuanceView, paymentUrl, type GroupView, type IssuanceView } from './issuance-view.js';
export {
  findGroupById,
  findGroupByPublicId,
  findIssuanceByAddress,
  findIssuanceById,
  findIssuanceByPublicId,
  listGroupOptions,
} from './issuances.repository.js';
export { toGroup, toIssuance, type GroupRow, type IssuanceRow } from './issuances.repository.js';
export { paymentsRoutes } from './payments.routes.js';
export { latestConfirmedPayoutTxHash, toPayout, toTransfer } from './ledger.repository.js';
export { payoutEventData, PAYOUT_TRANSFER_IDS_CAP } from './event-data.js';
export type { Issuance, IssuanceGroup, IssuanceKind, IssuanceStatus, Payout, PayoutStatus, Transfer, TransferDisposition, TransferStatus } from './issuance.js';
export { AllocateAddressesJob } from './allocate-addresses.job.js';
export { ExpireInvoicesJob } from './expire-invoices.job.js';
export { SendPayoutsJob } from './send-payouts.job.js';
export { MAX_SEND_ERRORS } from './payout-lifecycle.js';

/** The module's workers: address allocation, invoice expiry and payout sending. */
export function issuanceJobs(context: AppContext): Job[] {
  return [
    new AllocateAddressesJob({ db: context.db, clock: context.clock, adapters: context.chains, log: context.log }),
    new ExpireInvoicesJob({ db: context.db, clock: context.clock }),
    new SendPayoutsJob({ db: context.db, clock: context.clock, adapters: context.chains, log: context.log }),
  ];
}
