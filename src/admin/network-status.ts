import type { Tx } from '../platform/database/database.js';

/**
 * What the operator sees of one live network (GET /admin/v1/networks):
 * enough to fund the relayer and to see whether the watcher keeps up.
 * Amounts and block numbers are decimal strings or null when the node did
 * not answer (the endpoint must work while a node is down).
 */
export interface LiveNetworkStatus {
  readonly chain_id: number;
  readonly name: string;
  readonly relayer_address: string;
  /** Native coin balance in wei, decimal string; null when the node did not answer. */
  readonly relayer_balance: string | null;
  /** Tron: energy the relayer can use now without burning TRX (staked or delegated); null when the node did not answer. */
  readonly relayer_energy?: number | null;
  /** Payouts parked until the relayer can pay gas (`gas.wait`). */
  readonly payouts_waiting_gas: number;
  readonly head_block: number | null;
  readonly last_scanned_block: number | null;
  readonly confirmations: number;
  /** Present while a rescan the operator asked for runs (POST /admin/v1/networks/{chain_id}/rescan). */
  readonly rescan?: RescanView;
}

/** A rescan in progress: blocks `from_block..to_block`, read again up to `next_block` (exclusive). */
export interface RescanView {
  readonly from_block: number;
  readonly to_block: number;
  readonly next_block: number;
}

/** Handed in by the composition root: `admin/` knows no chain module. */
export type ListLiveNetworks = () => Promise<LiveNetworkStatus[]>;

/**
 * Starts a rescan of a scanned network (issue 22 item 5), `audit` writing the
 * operator log in the same transaction; refuses with the field at fault.
 * Handed in by the composition root, which knows which networks are scanned.
 */
export type RescanNetwork = (request: { readonly chainId: number; readonly fromBlock: number; readonly toBlock: number }, audit: (trx: Tx) => Promise<void>) => Promise<RescanView>;
