/** What other modules may use of payments: the read model over transfers and payouts, served as routes only. */
export { paymentsRoutes } from './payments.routes.js';
