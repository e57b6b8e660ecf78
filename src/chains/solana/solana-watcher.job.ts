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
 * Only an empty (or missing) account is remembered as quiet: an account
 * holding tokens may be swept and paid the same amount again between two
 * polls, leaving its data as it was, so it is read every poll until it is
 * empty. An empty account cannot come back to empty unseen: only Ivory's
 * deposit key moves its tokens, and it moves only what a read has credited.
 * An open issuance's Solana Pay reference is read too, right after its
 * token account whenever that one is read: both find the same transfer
 * under the same key (decision 0039).
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
    const open = new Set(watched.filter((entry) => entry.open).map((entry) => entry.issuanceId));
    const deposits = await listDepositAddresses(
      db,
      chainId,
      watched.map((entry) => entry.issuanceId),
    );
    const byAccount = new Map<string, WatchedTokenAccount>(
      deposits.map((deposit) => [deposit.tokenAccount, { issuanceId: deposit.issuanceId, tokenAccount: deposit.tokenAccount, owner: deposit.ownerAddress, mint: deposit.mint }]),
    );
    // Solana Pay references of open issuances only (decision 0039): after settlement or expiry a
    // late payment is still found through the token account, which stays watched.
    const referenceOf = new Map<string, string>();
    for (const deposit of deposits) if (deposit.reference !== null && open.has(deposit.issuanceId)) referenceOf.set(deposit.tokenAccount, deposit.reference);
    const byReference = new Map<string, WatchedTokenAccount>();
    for (const [account, reference] of referenceOf) {
      const entry = byAccount.get(account);
      if (entry !== undefined) byReference.set(reference, entry);
    }
    const accounts = [...byAccount.keys()];
    const data = await this.#accountData(accounts);
    const dataOf = new Map(accounts.map((account, index) => [account, data[index]]));
    const changed = accounts.filter((account) => this.#quiet.get(account) !== dataOf.get(account));
    // A reference holds no data to batch-read, and a transaction through it credits only a change
    // of its token account: it is read in the passes that read that token account (decision 0039).
    const references = changed.flatMap((account) => {
      const reference = referenceOf.get(account);
      return reference === undefined ? [] : [reference];
    });
    const source = solanaTransferSource({ rpc, chainId, watched: (address) => byAccount.get(address) ?? byReference.get(address) });
    const quietRead = { ...source, read: async (address: string, after: string | null) => {
      const read = await source.read(address, after);
      if (!byAccount.has(address)) return read;
      const seen = dataOf.get(address);
      if (read.transfers.length === 0 && seen !== undefined && holdsNoTokens(seen)) this.#quiet.set(address, seen);
      else this.#quiet.delete(address);
      return read;
    } };
    const done = await addressSignaturePass(
      { db, clock, chainId, source: quietRead, ledger: { ledger, workers: 1, batchSize: 200, displayAddress: (address) => address } },
      [...changed, ...references],
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

/**
 * Whether account data read by `#accountData` is a missing account or a token
 * account whose amount is zero (SPL Token and Token-2022 share the base
 * layout: the amount is a little-endian u64 at byte 64).
 */
function holdsNoTokens(data: string): boolean {
  if (data === '') return true;
  const bytes = Buffer.from(data.slice(data.indexOf(':') + 1), 'base64');
  return bytes.length >= 72 && bytes.readBigUInt64LE(64) === 0n;
}
