import type { ChainAdapter } from '../chain-adapter.js';
import type { ChainFamilyDriver, FamilyDriverDeps, LiveNetworkState, RunningFamily } from '../family-driver.js';
import type { Job } from '../../platform/jobs.js';
import { allocateDepositAddress } from './allocate-deposit-address.js';
import { sendSolanaPayout } from './payouts/send-solana-payout.js';
import { SolanaPayoutTrackerJob } from './payouts/solana-payout-tracker.job.js';
import { solanaAccessParser, type SolanaAccess } from './solana-access.js';
import { solanaAddressCodec } from './solana-address-codec.js';
import { solanaFamilyRules } from './solana-family-rules.js';
import { ensureDepositSeed, ensureSolanaRelayer, findSolanaRelayer } from './solana-keys.js';
import { solanaNetworkOf, type SolanaNetwork } from './solana-network.js';
import { bounded, lamportsOf, solanaRpc, type SolanaRpc } from './solana-rpc.js';
import { SolanaWatcherJob } from './solana-watcher.job.js';
import { findScannedFinalizedSlot } from './solana-watch-progress.repository.js';
import { recipientTokenAccountProblem } from './recipient-token-account.js';
import { ReclaimRentJob } from './reclaim-rent.job.js';

/** Solana (issue 24): a deposit key per issuance, token accounts paid by the relayer, credit at finalized. */
export const solanaDriver: ChainFamilyDriver<SolanaAccess> = {
  family: 'solana',
  codec: solanaAddressCodec,
  rules: solanaFamilyRules,
  access: solanaAccessParser,
  start: startSolanaChains,
};

/**
 * Every live Solana network of the catalogue: its relayer and the
 * deployment's deposit seed (generated and sealed on first start), its
 * adapter (allocation, crash-safe sweeps), the watcher and the payout
 * tracker. Talks to no node here.
 */
async function startSolanaChains(deps: FamilyDriverDeps): Promise<RunningFamily> {
  const adapters = new Map<number, ChainAdapter>();
  const jobs: Job[] = [];
  const live: { readonly network: SolanaNetwork; readonly rpc: SolanaRpc }[] = [];
  for (const entry of deps.networks) {
    if (!entry.enabled || entry.chain?.family !== 'solana') continue;
    const network = solanaNetworkOf(entry, entry.chain);
    const rpc = solanaRpc(network.rpcUrl);
    await ensureSolanaRelayer(deps.db, deps.secrets, network.chainId);
    await ensureDepositSeed(deps.db, deps.secrets);
    const common = { db: deps.db, secrets: deps.secrets, clock: deps.clock, rpc, network, log: deps.log };
    adapters.set(network.chainId, {
      name: `solana-${network.chainId}`,
      allocateAddress: (request) => allocateDepositAddress(common, request),
      sendPayout: (request) => sendSolanaPayout(common, request),
      recipientProblem: (recipient, token) => recipientTokenAccountProblem(rpc, recipient, token),
    });
    jobs.push(
      new SolanaWatcherJob({ db: deps.db, clock: deps.clock, rpc, chainId: network.chainId, pollIntervalMs: network.pollIntervalMs, ledger: deps.transferLedger, log: deps.log }),
      new SolanaPayoutTrackerJob({ db: deps.db, clock: deps.clock, rpc, chainId: network.chainId, pollIntervalMs: network.pollIntervalMs, ledger: deps.sweepLedger, log: deps.log }),
      new ReclaimRentJob({ db: deps.db, secrets: deps.secrets, clock: deps.clock, rpc, chainId: network.chainId, log: deps.log }),
    );
    live.push({ network, rpc });
  }
  return {
    adapters,
    jobs,
    status: () =>
      Promise.all(
        live.map(async ({ network, rpc }): Promise<LiveNetworkState> => {
          const relayer = await findSolanaRelayer(deps.db, network.chainId);
          const [balance, head, scanned] = await Promise.all([
            relayer === undefined ? null : lamportsOf(rpc, relayer.address).catch(() => null),
            rpc.getSlot({ commitment: 'confirmed' }).send(bounded()).catch(() => null),
            findScannedFinalizedSlot(deps.db, network.chainId),
          ]);
          return {
            chainId: network.chainId,
            name: network.name,
            relayerAddress: relayer?.address ?? '',
            relayerBalance: balance,
            headBlock: head,
            // Solana is read per token account, not by block: the honest analogue of a block cursor is the
            // finalized slot before the watcher's last complete pass (solana-watcher.job.ts).
            lastScannedBlock: scanned,
            confirmations: 0,
          };
        }),
      ),
  };
}
