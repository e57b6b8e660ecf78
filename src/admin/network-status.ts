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
  /** Payouts parked until the relayer can pay gas (`gas.wait`). */
  readonly payouts_waiting_gas: number;
  readonly head_block: number | null;
  readonly last_scanned_block: number | null;
  readonly confirmations: number;
}

/** Handed in by the composition root: `admin/` knows no chain module. */
export type ListLiveNetworks = () => Promise<LiveNetworkStatus[]>;
