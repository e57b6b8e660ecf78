import { getCloseAccountInstruction } from '@solana-program/token';
import { address as toAddress } from '@solana/kit';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db } from '../../platform/database/database.js';
import type { Job } from '../../platform/jobs.js';
import type { DriverLog } from '../family-driver.js';
import { openDepositKey, solanaRelayerKey } from './solana-keys.js';
import { listReclaimableAddresses, markRentReclaimed, type SolanaDepositAddress } from './solana-keys.repository.js';
import { bounded, existingAccounts, sendSigned, signTransaction, signerOf, waitConfirmed, type SolanaRpc } from './solana-rpc.js';

export interface ReclaimRentDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly rpc: SolanaRpc;
  readonly chainId: number;
  readonly log: DriverLog;
}

/** How long after its sweep is confirmed an invoice address keeps its token account (a payer's wallet retrying, a late top-up). */
export const RETIRE_AFTER_MS = 10 * 60_000;

/**
 * Returns the rent of retired invoice addresses' token accounts to the
 * relayer (issue 24 item 2): an invoice address whose sweep was confirmed
 * `RETIRE_AFTER_MS` ago and whose token account is empty at `confirmed` and
 * at `finalized` is closed (`CloseAccount`, signed by the deposit key, paid by
 * the relayer). A late payer's wallet re-creates the same associated account
 * and pays into it; the watcher still watches that address, so the transfer
 * is recorded as a late transfer. An account holding anything is left open.
 */
export class ReclaimRentJob implements Job {
  readonly name: string;
  readonly idleMs = 60_000;

  constructor(private readonly deps: ReclaimRentDeps) {
    this.name = `solana-reclaim-rent:${deps.chainId}`;
  }

  async run(): Promise<number> {
    const { db, clock, chainId, log } = this.deps;
    const due = await listReclaimableAddresses(db, chainId, new Date(clock.now().getTime() - RETIRE_AFTER_MS));
    let done = 0;
    for (const address of due) {
      try {
        if (await this.#reclaim(address)) done += 1;
      } catch (error) {
        log.warn({ err: error, issuanceId: address.issuanceId, tokenAccount: address.tokenAccount }, 'Solana rent reclaim failed; trying again later');
      }
    }
    return done;
  }

  /** True when the row moved (closed now, or found gone); false when the account holds tokens (left open, asked again later). */
  async #reclaim(address: SolanaDepositAddress): Promise<boolean> {
    const { db, rpc, secrets, chainId, clock } = this.deps;
    const [exists] = await existingAccounts(rpc, [address.tokenAccount], 'confirmed');
    if (exists !== true) {
      await markRentReclaimed(db, address.issuanceId, clock.now());
      return true;
    }
    const account = toAddress(address.tokenAccount);
    const [confirmed, finalized] = await Promise.all([
      rpc.getTokenAccountBalance(account, { commitment: 'confirmed' }).send(bounded()),
      rpc.getTokenAccountBalance(account, { commitment: 'finalized' }).send(bounded()),
    ]);
    if (confirmed.value.amount !== '0' || finalized.value.amount !== '0') return false;
    const relayerKey = await solanaRelayerKey(db, secrets, chainId);
    const relayer = await signerOf(relayerKey.privateKey);
    const depositKey = await openDepositKey(db, secrets, address.derivationIndex);
    const owner = await signerOf(depositKey.privateKey);
    depositKey.privateKey.fill(0);
    const signed = await signTransaction(rpc, relayer, [
      getCloseAccountInstruction({ account, destination: relayer.address, owner }, { programAddress: toAddress(address.tokenProgram) }),
    ]);
    await sendSigned(rpc, signed.wireBase64);
    await waitConfirmed(rpc, signed.signature, 30_000);
    await markRentReclaimed(db, address.issuanceId, clock.now());
    return true;
  }
}
