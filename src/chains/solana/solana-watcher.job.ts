import { address as toAddress } from '@solana/kit';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database/database.js';
import type { Job } from '../../platform/jobs.js';
import type { DriverLog } from '../family-driver.js';
import { addressSignaturePass } from '../ingest/index.js';
import type { TransferLedger } from '../ledger-ports.js';
import { listDepositAddresses } from './solana-keys.repository.js';
import { bounded, type SolanaRpc } from './solana-rpc.js';
import { solanaTransferSource, type WatchedTokenAccount } from './solana-transfer-source.js';
import { noteScannedFinalizedSlot } from './solana-watch-progress.repository.js';

export interface SolanaWatcherDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly rpc: SolanaRpc;
  readonly chainId: number;
  readonly pollIntervalMs: number;
  readonly ledger: TransferLedger;
  readonly log: DriverLog;
}

/** `getMultipleAccounts` takes at most 100 addresses per call. */
const ACCOUNTS_PER_CALL = 100;

/**
 * Watches one Solana network's deposit token accounts through the generic
 * per-address ingest pass. To spare the node, each poll first reads every
 * watched token account in `getMultipleAccounts` batches (one request per 100
 * accounts) and asks for signatures only of accounts whose data changed since
 * their last quiet read, or that still have transfers not yet final. The
 * memory of what was quiet is an optimisation only: a restart reads all once.
 * A pass that completes records the finalized slot read before it began: the
 * operator's `last_scanned_block` (every transfer to a watched account
 * finalized by then is recorded).
 */
export class SolanaWatcherJob implements Job {
  readonly name: string;
  readonly idleMs: number;
  readonly #quiet = new Map<string, string>();

  constructor(private readonly deps: SolanaWatcherDeps) {
    this.name = `solana-watcher:${deps.chainId}`;
    this.idleMs = Math.max(deps.pollIntervalMs, 50);
  }

  async run(): Promise<number> {
    try {
      return await this.#pass();
    } catch (error) {
      this.deps.log.warn({ err: error, chainId: this.deps.chainId }, 'Solana watcher pass failed; trying again next poll');
      return 0;
    }
  }

  async #pass(): Promise<number> {
    const { db, clock, rpc, chainId, ledger } = this.deps;
    // Read first: what this pass reads afterwards covers every transfer finalized by this slot.
    const finalizedSlot = await rpc.getSlot({ commitment: 'finalized' }).send(bounded());
    const watched = await ledger.watchedAddresses(db, 'solana', chainId, null);
    const deposits = await listDepositAddresses(
      db,
      chainId,
      watched.map((entry) => entry.issuanceId),
    );
    const byAccount = new Map<string, WatchedTokenAccount>(deposits.map((deposit) => [deposit.tokenAccount, { issuanceId: deposit.issuanceId, owner: deposit.ownerAddress, mint: deposit.mint }]));
    const accounts = [...byAccount.keys()];
    const data = await this.#accountData(accounts);
    const changed = accounts.filter((account, index) => this.#quiet.get(account) !== data[index]);
    const source = solanaTransferSource({ rpc, chainId, watched: (account) => byAccount.get(account) });
    const quietRead = { ...source, read: async (account: string, after: string | null) => {
      const read = await source.read(account, after);
      const index = accounts.indexOf(account);
      if (read.transfers.length === 0 && index >= 0) this.#quiet.set(account, data[index] ?? '');
      else this.#quiet.delete(account);
      return read;
    } };
    const done = await addressSignaturePass(
      { db, clock, chainId, source: quietRead, ledger: { ledger, workers: 1, batchSize: 200, displayAddress: (address) => address } },
      changed,
    );
    await noteScannedFinalizedSlot(db, chainId, finalizedSlot, clock.now());
    return done;
  }

  /** Each account's data at `confirmed` (base64, '' when missing), in batches. */
  async #accountData(accounts: readonly string[]): Promise<string[]> {
    const data: string[] = [];
    for (let start = 0; start < accounts.length; start += ACCOUNTS_PER_CALL) {
      const chunk = accounts.slice(start, start + ACCOUNTS_PER_CALL);
      const { value } = await this.deps.rpc
        .getMultipleAccounts(chunk.map((account) => toAddress(account)), { commitment: 'confirmed', encoding: 'base64' })
        .send(bounded());
      data.push(...value.map((account) => (account === null ? '' : `${account.lamports}:${account.data[0]}`)));
    }
    return data;
  }
}
