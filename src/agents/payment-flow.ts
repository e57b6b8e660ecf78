/** The payment flow in a few lines, for a model: served as a resource and as a prompt. */
export const PAYMENT_FLOW = `How a payment works in Ivory (one shop; its API key chose what you may do):
1. list_networks: pick a network by name and a token by symbol. Amounts are decimal token amounts ("25", "10.5"), never base units.
2. create_invoice (or create_multi_option_invoice, or create_deposit for a reusable address). Repeating the same call returns the same invoice: the answer says its idempotency key.
3. get_issuance until address is set (status registering → open), then give the payer payment_url exactly as returned.
4. The payer pays on chain. Partial payments add up in received. When enough is confirmed the invoice is funded (paid; payout to the merchant scheduled), then settled when it closes on chain.
5. Follow with get_issuance, list_payments (transfers and payouts, with fees) or webhooks (register_webhook; list_events, list_deliveries, replay_delivery).
Cancelling (cancel_invoice) or pausing a deposit closes the page only: no refund, and money sent anyway is still recorded.
On a sandbox shop no money moves: simulate_payment, then simulate_close, make an invoice funded and settled; simulate_revert takes a payment back.
Errors carry a code (such as amount_below_minimum or forbidden) and a sentence saying what to do.`;
