import type { ListLiveNetworks } from './admin/index.js';
import type { Catalogue, IsLive } from './catalogue/index.js';
import { startEvmChains, type ChainAdapters, type SweepLedger, type EvmChains, type TransferLedger } from './chains/index.js';
import { listWatchedAddresses } from './allocation/index.js';
import { recordTransfers } from './issuances/index.js';
import { confirmPayout, countWaitingGasPayouts, recordFailedSweep, revertPayout, wakeWaitingGasPayouts } from './payouts/index.js';
import type { Clock } from './platform/clock.js';
import type { SecretBox } from './platform/crypto.js';
import type { Db } from './platform/database/database.js';
import type { IvoryServer } from './platform/http/server.js';

/**
 * What the chain watchers and relayers may do to the ledger, wired here so
 * that `chains/` imports no business module (ARCHITECTURE "Boundaries").
 */
const transferLedger: TransferLedger = {
  async recordTransfers(trx, now, transfers) {
    await recordTransfers(trx, { now }, transfers);
  },
  watchedAddresses: listWatchedAddresses,
};

const sweepLedger: SweepLedger = {
  async confirmPayout(trx, now, input) {
    await confirmPayout(trx, { now }, input);
  },
  async revertPayout(trx, now, input) {
    await revertPayout(trx, { now }, input);
  },
  async sweepFailed(trx, now, input) {
    await recordFailedSweep(trx, { now }, input);
  },
  async relayerFunded(trx, now, network) {
    return wakeWaitingGasPayouts(trx, network.chainId, now);
  },
};

/**
 * Decision 0023: a network is live on this deployment when it is enabled and
 * a chain adapter serves its live issuances — exactly when a live invoice on
 * it gets past network_not_ready. Read at each call, since the adapters are.
 */
export function networkLiveness(catalogue: Catalogue, chains: ChainAdapters): IsLive {
  return (chainId) => {
    const network = catalogue.network(chainId);
    return network !== undefined && network.enabled && chains.adapterFor(false, chainId, network.family) !== undefined;
  };
}

/** The live EVM networks of the catalogue, their workers, and what the operator sees of them. */
export async function startLiveChains(deps: {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly log: IvoryServer['log'];
}): Promise<{ readonly evm: EvmChains; readonly listLiveNetworks: ListLiveNetworks }> {
  const evm = await startEvmChains({
    db: deps.db,
    secrets: deps.secrets,
    clock: deps.clock,
    log: deps.log,
    networks: deps.catalogue.networks(),
    transferLedger,
    sweepLedger,
  });
  const listLiveNetworks: ListLiveNetworks = async () =>
    Promise.all(
      (await evm.status()).map(async (network) => ({
        chain_id: network.chainId,
        name: network.name,
        relayer_address: network.relayerAddress,
        relayer_balance: network.relayerBalance === null ? null : network.relayerBalance.toString(),
        payouts_waiting_gas: await countWaitingGasPayouts(deps.db, network.chainId),
        head_block: network.headBlock === null ? null : Number(network.headBlock),
        last_scanned_block: network.lastScannedBlock === null ? null : Number(network.lastScannedBlock),
        confirmations: network.confirmations,
      })),
    );
  return { evm, listLiveNetworks };
}
