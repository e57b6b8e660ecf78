/**
 * SPEC "Limits": amount caps, active invoices and deposit addresses per
 * merchant, and what "an invoice still open" means in SQL. Issuance creation,
 * deposit re-enabling and the expiry job use it; the sandbox reads its caps.
 */
export {
  DEFAULT_ACTIVE_INVOICE_LIMIT,
  DEFAULT_DEPOSIT_ADDRESS_LIMITS,
  INVOICE_AMOUNT_LIMIT_TOKENS,
  SANDBOX_AMOUNT_LIMIT_TOKENS,
  activeInvoiceLimit,
  addressesByFamily,
  checkInvoiceAmountLimits,
  depositAddressLimit,
} from './limits.js';
export {
  enforceDepositAddressLimit,
  lockMerchantForLimits,
  withInvoiceLimitGate,
  type InvoiceLimitGate,
  type InvoiceLimitStateValues,
} from './enforce-limits.js';
export { OPEN_INVOICE_GROUP, OPEN_SINGLE_INVOICE, isOpenInvoiceGroup, isOpenSingleInvoice } from './open-invoice.js';
export { whereOpenInvoiceGroup, whereOpenSingleInvoice } from './open-invoices.repository.js';
export { enterSharedInvoiceGate, isNearInvoiceLimit } from './limits.repository.js';
