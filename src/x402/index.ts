/**
 * x402 on invoices (issue 26 item 2, docs/decisions/0035): `GET {payment_url}/x402` asks for an
 * EIP-3009 authorisation of what a live invoice owes and settles it through the network's relayer.
 */
export { x402Routes } from './x402.routes.js';
