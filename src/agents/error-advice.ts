/**
 * A sentence per SPEC error code that tells a model what to do next, for the
 * codes a tool can meet; anything else gets the status-class advice.
 */
const ADVICE: Readonly<Record<string, string>> = {
  unauthorized: 'The API key is missing, wrong, revoked, disabled or used from an IP address outside its allowlist: ask the user for a valid shop API key.',
  forbidden: 'This API key lacks the scope for this call (scopes are exact: `write` does not imply `read`): ask the user for a key with the needed scope.',
  account_disabled: 'The merchant is blocked by the operator: nothing can be done through the API; tell the user.',
  not_found: 'No such record in this shop: check the id (list_issuances or list_deliveries show the ids).',
  rate_limited: 'Too many requests: wait a minute, then retry the same call.',
  internal_error: 'Ivory failed: retry the same call (with the same idempotency_key) after a few seconds.',
  unavailable: 'Ivory\'s database is briefly unavailable: retry the same call in a few seconds.',
  idempotency_conflict: 'This idempotency_key was already used with different arguments: pass a new idempotency_key for a new operation.',
  invalid_amount: 'The amount must be a decimal token amount such as "10" or "10.5", with no more decimals than the token has.',
  amount_below_minimum: 'The amount is below the network\'s minimum payment: list_networks shows minimum_payment per network.',
  invoice_amount_limit: 'One invoice may ask at most 1,000,000 tokens: split it into several invoices.',
  sandbox_amount_limit: 'A sandbox invoice or simulated transfer may be at most 10,000 tokens: use a smaller amount.',
  active_invoice_limit_reached: 'The merchant has too many unpaid invoices: cancel unneeded ones (cancel_invoice) first.',
  deposit_address_limit_reached: 'The merchant has too many active deposit addresses: pause unneeded deposits first.',
  unsupported_network: 'No such network: call list_networks and use one of the names it gives.',
  unsupported_asset: 'That token is not offered on this network: call list_networks for the tokens each network offers.',
  network_not_ready: 'The network is listed but does not take live payments on this installation: pick a network with live true, or use a sandbox shop.',
  asset_not_ready: 'The token is not ready for payments yet: pick another token from list_networks.',
  fee_exceeds_amount: 'The fee would be larger than the amount: ask for a larger amount (get_terms shows the fees).',
  invalid_expires_in: 'expires_in must be one of 1d, 7d, 30d, 180d or 365d, and is not accepted on deposits.',
  invalid_assets: 'The options must be distinct token/network pairs, at least one.',
  issuance_in_group: 'That id is one option of a group: act on the group\'s own id instead.',
  invalid_state: 'The record is not in a state that allows this (for example an invoice already paid): read it with get_issuance first.',
  wallet_not_ready: 'The shop pays into the service wallet, which is not set up yet: the merchant must finish the payout setup in the dashboard.',
  solana_setup_required: 'The shop has no Solana payout recipient: the merchant sets one in the dashboard.',
  tron_setup_required: 'The shop has no Tron payout recipient: the merchant sets one in the dashboard.',
  solana_sandbox_unavailable: 'Sandbox shops cannot use Solana: pick an EVM or Tron network.',
  shop_archived: 'This shop is archived: use another shop\'s API key.',
  onboarding_required: 'The merchant has not completed onboarding: the user must finish it in the dashboard.',
  invalid_simulation: 'Simulations work only on a sandbox shop, on an issuance of that shop, with a kind and amount that fit its state.',
  invalid_webhook_url: 'The webhook URL must be a public https address (local and private addresses are refused).',
  invalid_filters: 'Filters are event names (transfer.confirmed, invoice.closed, …) or the groups transfer, invoice, payout.',
  webhook_limit_reached: 'The shop already has 10 webhook endpoints: one must be deleted first (in the dashboard).',
  invalid_cursor: 'The cursor is not one this list returned: start again without a cursor.',
  invalid_request: 'An argument is malformed: see details.field and details.reason, fix it and retry.',
};

export function adviceFor(code: string, status: number): string {
  return ADVICE[code] ?? (status >= 500 ? ADVICE.internal_error ?? '' : 'Ivory refused the call: see details, fix the arguments and retry.');
}
