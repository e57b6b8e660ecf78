import type { Db } from '../../../platform/database/database.js';
import type { ChainFamily } from '../../chain-network.js';
import type { TransferLedger, WatchedAddress } from '../../ledger-ports.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The live payment addresses of one network, in memory (tens of thousands fit
 * easily), loaded incrementally from the ledger. Each refresh re-reads a short
 * overlap before the newest row it has seen: an allocation that committed late
 * with an earlier timestamp is still picked up. Addresses are never removed:
 * a settled or cancelled issuance's address stays monitored (SPEC).
 */
export class WatchedAddressBook {
  readonly #byAddress = new Map<string, WatchedAddress>();
  readonly #overlapMs: number;
  #newest: WatchedAddress | null = null;

  readonly #family: ChainFamily;
  readonly #logForm: (address: string) => string;

  /**
   * `logForm` turns a watched address or token, as the ledger spells it, into
   * the form the logs carry (lower-case 0x; Tron's `T…` become their TVM hex).
   */
  constructor(options: { readonly overlapMs: number; readonly family?: ChainFamily; readonly logForm?: (address: string) => string }) {
    this.#overlapMs = options.overlapMs;
    this.#family = options.family ?? 'evm';
    this.#logForm = options.logForm ?? ((address) => address.toLowerCase());
  }

  get size(): number {
    return this.#byAddress.size;
  }

  lookup(address: string): WatchedAddress | undefined {
    return this.#byAddress.get(address);
  }

  async refresh(db: Db, ledger: TransferLedger, chainId: number): Promise<void> {
    const newest = this.#newest;
    const after = newest === null ? null : { allocatedAt: new Date(newest.allocatedAt.getTime() - this.#overlapMs), issuanceId: NIL_UUID };
    for (const watched of await ledger.watchedAddresses(db, this.#family, chainId, after)) {
      const address = this.#logForm(watched.address);
      this.#byAddress.set(address, { ...watched, address, token: this.#logForm(watched.token) });
      if (this.#newest === null || watched.allocatedAt.getTime() >= this.#newest.allocatedAt.getTime()) this.#newest = watched;
    }
  }
}
