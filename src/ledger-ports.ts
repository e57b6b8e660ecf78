import type { LedgerPorts } from './issuances/index.js';
import { payoutLedger } from './payouts/index.js';
import { fanOutEvent } from './webhook-delivery/index.js';

/**
 * The ledger's reactions, composed here so that no module imports one that
 * builds on it (ARCHITECTURE "Boundaries"): the payouts the issuance lifecycle
 * moves, and the outbox's subscribers — webhook deliveries are written in the
 * transaction that writes their event (ARCHITECTURE rule 1). Every composition
 * root (the app, the admin CLI) passes this one value to what writes the ledger.
 */
export const ledgerPorts: LedgerPorts = Object.freeze({
  payouts: payoutLedger,
  eventSubscribers: Object.freeze([fanOutEvent]),
});
