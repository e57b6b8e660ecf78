import type { NetworkFamily } from '../catalogue/index.js';

/** What an adapter needs to know about an issuance to give it a payment address. */
export interface AddressRequest {
  readonly issuanceId: string;
  readonly chainId: number;
  readonly family: NetworkFamily;
  readonly kind: 'invoice' | 'deposit';
  readonly token: string;
}

/**
 * One blockchain family behind one interface (ARCHITECTURE "Modules": `chains/`).
 * The allocation worker calls it outside any database transaction (ARCHITECTURE:
 * never hold a transaction across a network call), so an implementation may
 * talk to a node. Implementations must be idempotent per issuance: asked twice
 * for the same issuance (a worker crashed after asking), they answer the same
 * address.
 *
 * Declared here is what Ivory uses today. The live adapters (`evm/`, `tron/`,
 * `solana/`) will add, next to `allocateAddress`:
 * - `scanTransfers(fromBlock)`: incoming token transfers to allocated addresses,
 *   with their natural key (tx hash, log or instruction index) and confirmation
 *   depth, handed to the issuances ledger's `recordTransfer`; reorged ones come
 *   back as reversals.
 * - `sendPayout(payout)`: broadcast the sweep of an address (recipient share and
 *   operator share) and return its transaction hash; gas shortage is reported
 *   as a wait, not a failure.
 * The sandbox adapter will never implement those two: sandbox money does not move.
 */
export interface ChainAdapter {
  readonly name: string;
  allocateAddress(request: AddressRequest): Promise<string>;
}

/** Finds the adapter serving a network, for sandbox or live issuances. */
export interface ChainAdapters {
  /** undefined: no adapter configured for that network (`network_not_ready`). */
  adapterFor(sandbox: boolean, chainId: number, family: NetworkFamily): ChainAdapter | undefined;
}
