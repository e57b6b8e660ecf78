import type { ListLiveNetworks, RescanNetwork, RescanView } from './admin/index.js';
import type { Catalogue, IsLive } from './catalogue/index.js';
import { familyDrivers, listRescans, requestRescan, type Rescan, type ChainAdapters, type FamilyAdapters, type LiveNetworkState, type SweepLedger, type TransferLedger } from './chains/index.js';
import { listWatchedAddresses } from './allocation/index.js';
import { recordTransfers, type LedgerPorts } from './issuances/index.js';
import { confirmPayout, countWaitingGasPayouts, recordFailedSweep, revertPayout, wakeWaitingGasPayouts } from './payouts/index.js';
import type { Clock } from './platform/clock.js';
import type { SecretBox } from './platform/crypto.js';
import type { Db } from './platform/database/database.js';
import { IvoryError } from './platform/errors.js';
import type { Job } from './platform/jobs.js';
import type { IvoryServer } from './platform/http/server.js';

/**
 * What the chain watchers and relayers may do to the ledger, wired here so
 * that `chains/` imports no business module (ARCHITECTURE "Boundaries").
 */
function chainLedgers(ledger: LedgerPorts): { transferLedger: TransferLedger; sweepLedger: SweepLedger } {
  return {
    transferLedger: {
      async recordTransfers(trx, now, transfers) {
        await recordTransfers(trx, { now, ledger }, transfers);
      },
      watchedAddresses: listWatchedAddresses,
    },
    sweepLedger: {
      async confirmPayout(trx, now, input) {
        await confirmPayout(trx, { now, ledger }, input);
      },
      async revertPayout(trx, now, input) {
        await revertPayout(trx, { now, ledger }, input);
      },
      async sweepFailed(trx, now, input) {
        await recordFailedSweep(trx, { now, ledger }, input);
      },
      async relayerFunded(trx, now, network) {
        return wakeWaitingGasPayouts(trx, network.chainId, now);
      },
    },
  };
}

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

/** The running families of this deployment: their adapters, their workers, and what the operator sees of them. */
export interface LiveChains {
  readonly adapters: FamilyAdapters;
  readonly jobs: readonly Job[];
  readonly listLiveNetworks: ListLiveNetworks;
  readonly rescanNetwork: RescanNetwork;
}

/**
 * Starts every registered family driver with the catalogue's networks of its
 * family. A family without a driver starts nothing: its networks stay listed
 * and not live.
 */
export async function startLiveChains(deps: {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly log: IvoryServer['log'];
  readonly ledger: LedgerPorts;
}): Promise<LiveChains> {
  const { transferLedger, sweepLedger } = chainLedgers(deps.ledger);
  const adapters: { -readonly [Family in keyof FamilyAdapters]: FamilyAdapters[Family] } = {};
  const jobs: Job[] = [];
  const running: { status(): Promise<LiveNetworkState[]>; readonly adapters: { has(chainId: number): boolean } }[] = [];
  for (const driver of familyDrivers) {
    const family = await driver.start({
      db: deps.db,
      secrets: deps.secrets,
      clock: deps.clock,
      log: deps.log,
      networks: deps.catalogue.networks().filter((network) => network.family === driver.family),
      transferLedger,
      sweepLedger,
    });
    adapters[driver.family] = family.adapters;
    jobs.push(...family.jobs);
    running.push(family);
  }
  const listLiveNetworks: ListLiveNetworks = async () => {
    const states = (await Promise.all(running.map((family) => family.status()))).flat();
    const rescans = new Map((await listRescans(deps.db)).map((rescan) => [rescan.chainId, rescan]));
    return Promise.all(
      states.map(async (network) => ({
        chain_id: network.chainId,
        name: network.name,
        relayer_address: network.relayerAddress,
        relayer_balance: network.relayerBalance === null ? null : network.relayerBalance.toString(),
        ...(network.relayerEnergy === undefined ? {} : { relayer_energy: network.relayerEnergy === null ? null : Number(network.relayerEnergy) }),
        payouts_waiting_gas: await countWaitingGasPayouts(deps.db, network.chainId),
        head_block: network.headBlock === null ? null : Number(network.headBlock),
        last_scanned_block: network.lastScannedBlock === null ? null : Number(network.lastScannedBlock),
        confirmations: network.confirmations,
        ...rescanOf(rescans.get(network.chainId)),
      })),
    );
  };
  // Only a network some running family scans can be read again.
  const rescanNetwork: RescanNetwork = async (request, audit) => {
    const network = deps.catalogue.network(request.chainId);
    if (network === undefined || !running.some((family) => family.adapters.has(request.chainId))) throw new IvoryError('not_found');
    const rescan = await requestRescan(deps.db, { ...request, startBlock: network.startBlock, now: deps.clock.now() }, audit);
    return rescanView(rescan);
  };
  return { adapters, jobs, listLiveNetworks, rescanNetwork };
}

function rescanView(rescan: Rescan): RescanView {
  return { from_block: Number(rescan.fromBlock), to_block: Number(rescan.toBlock), next_block: Number(rescan.nextBlock) };
}

function rescanOf(rescan: Rescan | undefined): { rescan?: RescanView } {
  return rescan === undefined ? {} : { rescan: rescanView(rescan) };
}
