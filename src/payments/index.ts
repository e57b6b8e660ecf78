/** What other modules may use of payments: the read model over transfers and payouts, served as routes only. */
export { paymentsRoutes, UnmatchedTransferSchema } from './payments.routes.js';
export { listUnmatched, type UnmatchedTransferPage, type UnmatchedTransferView } from './list-unmatched-transfers.js';
export { listPendingSweeps, type PendingSweepAmount, type PendingSweepsView } from './list-pending-sweeps.js';
export { listReceivedTotals, type ReceivedTotalsView } from './list-received-totals.js';
