import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { address as toAddress, type Instruction } from '@solana/kit';
import type { Clock } from '../../../platform/clock.js';
import type { SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { PayoutBroadcast, PayoutRequest } from '../../chain-adapter.js';
import { nextExpiringPayoutStep, type SignedAttempt } from '../../expiring-payout.js';
import type { DriverLog } from '../../family-driver.js';
import { noteLamportsNeeded, openDepositKey, solanaRelayerKey } from '../solana-keys.js';
import { findDepositAddress, type SolanaDepositAddress } from '../solana-keys.repository.js';
import type { SolanaNetwork } from '../solana-network.js';
import { blockHeights, existingAccounts, lamportsOf, sendSigned, signTransaction, signatureStates, signerOf, tokenAccountRent, tokenBalance, type SolanaRpc } from '../solana-rpc.js';
import {
  insertSolanaPayoutTransaction,
  listSolanaPayoutTransactions,
  markSolanaBroadcast,
  type SolanaPayoutTransaction,
} from './solana-payout-transactions.repository.js';

export interface SendSolanaPayoutDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly rpc: SolanaRpc;
  readonly network: SolanaNetwork;
  readonly log: DriverLog;
  /** Tests only: stop after signing (before storing) or after storing (before broadcasting), as a crash would. */
  readonly hooks?: { afterSign?(): Promise<void>; afterStore?(): Promise<void> };
}

/** The network fee of a sweep: two signatures (the relayer's and the deposit key's) at 5,000 lamports. */
export const SWEEP_FEE_LAMPORTS = 10_000n;

/** The deposit token account holds less than the payout moves: temporary as far as the payout worker knows (it retries with back-off). */
export class SolanaNothingToSweepError extends Error {}

/**
 * Sends (or finds again) the sweep of one payout on Solana (issue 24 item 6):
 * ONE transaction paid by the relayer, two `TransferChecked` from the deposit
 * token account — `toRecipient` to the recipient's token account, `toOperator`
 * to the fee wallet's (created by the relayer when missing) — signed by the
 * deposit key and the relayer. Under the expiring-payouts rule: a transaction
 * already signed for the payout is followed or sent again; a new one is
 * signed only when every earlier one is proven unable to land (absent, and
 * its `lastValidBlockHeight` below the finalized block height). Stored before
 * it is broadcast. The relayer short of SOL: `gas.wait`.
 */
export async function sendSolanaPayout(deps: SendSolanaPayoutDeps, request: PayoutRequest): Promise<PayoutBroadcast> {
  const { network, db, rpc } = deps;
  if (request.chainId !== network.chainId) return { kind: 'failed', reason: `payout for chain ${request.chainId} sent to the adapter of Solana chain ${network.chainId}` };
  const deposit = await findDepositAddress(db, request.issuanceId);
  if (deposit === undefined) return { kind: 'failed', reason: `no deposit address was allocated for issuance ${request.issuanceId} on Solana chain ${network.chainId}` };
  if (deposit.ownerAddress !== request.fromAddress) return { kind: 'failed', reason: `payout address ${request.fromAddress} is not the issuance's deposit address` };
  if (network.feeWallet === undefined) return { kind: 'failed', reason: `the Solana network ${network.name} has no fee_wallet in the catalogue` };

  const attempts = await listSolanaPayoutTransactions(db, network.chainId, request.payoutId);
  // A sweep that failed on chain is done with: it moved nothing, and the payout signs anew.
  const contenders = attempts.filter((attempt) => attempt.status !== 'failed');
  if (contenders.length > 0) {
    const clocks = await blockHeights(rpc);
    const states = await signatureStates(
      rpc,
      contenders.map((attempt) => attempt.signature),
    );
    const seen = contenders.map((attempt, index): SignedAttempt => {
      const state = states[index] ?? null;
      const landed = attempt.status === 'confirmed' || (state !== null && !(state.finalized && state.failed));
      return { id: attempt.id, expiresAt: attempt.lastValidBlockHeight, seen: landed ? 'landed' : 'absent' };
    });
    const step = nextExpiringPayoutStep(seen, clocks);
    const attempt = (id: string) => contenders.find((candidate) => candidate.id === id) as SolanaPayoutTransaction;
    switch (step.kind) {
      case 'follow':
        return { kind: 'broadcast', txHash: attempt(step.attemptId).signature };
      case 'rebroadcast':
        return broadcastStored(deps, attempt(step.attemptId));
      case 'wait':
        // Expired at the head, not yet proven dead at the finalized height: the tracker decides.
        return { kind: 'broadcast', txHash: (contenders[contenders.length - 1] as SolanaPayoutTransaction).signature };
      case 'sign':
        break;
    }
  }
  return signAndSend(deps, request, deposit, network.feeWallet, attempts.length);
}

async function signAndSend(deps: SendSolanaPayoutDeps, request: PayoutRequest, deposit: SolanaDepositAddress, feeWallet: string, earlier: number): Promise<PayoutBroadcast> {
  const { rpc, network, db, clock } = deps;
  const total = request.toRecipient + request.toOperator;
  const balance = await tokenBalance(rpc, deposit.tokenAccount);
  if (total === 0n || balance < total) throw new SolanaNothingToSweepError(`deposit token account ${deposit.tokenAccount} holds ${balance}, the payout moves ${total}`);

  const tokenProgram = toAddress(deposit.tokenProgram);
  const mint = toAddress(deposit.mint);
  const [[recipientAccount], [feeAccount]] = await Promise.all([
    findAssociatedTokenPda({ owner: toAddress(request.recipient), mint, tokenProgram }),
    findAssociatedTokenPda({ owner: toAddress(feeWallet), mint, tokenProgram }),
  ]);
  const [recipientExists, feeExists] = await existingAccounts(rpc, [recipientAccount, feeAccount], 'confirmed');
  if (recipientExists !== true) {
    // SPEC `solana_recipient_token_account_required` is checked at creation; the recipient closed it since.
    return { kind: 'failed', reason: `the recipient ${request.recipient} holds no token account for ${deposit.mint} (${recipientAccount}); it must open one` };
  }
  const relayerKey = await solanaRelayerKey(db, deps.secrets, network.chainId);
  const needed = SWEEP_FEE_LAMPORTS + (feeExists === true ? 0n : await tokenAccountRent(rpc, deposit.tokenProgram));
  const lamports = await lamportsOf(rpc, relayerKey.address);
  if (lamports < needed) {
    deps.log.info({ payoutId: request.payoutId, relayer: relayerKey.address, needed: needed.toString(), balance: lamports.toString() }, 'Solana relayer lacks SOL for the sweep');
    await noteLamportsNeeded(db, network.chainId, needed, clock.now());
    return { kind: 'waiting_gas' };
  }

  const relayer = await signerOf(relayerKey.privateKey);
  const depositKey = await openDepositKey(db, deps.secrets, deposit.derivationIndex);
  if (depositKey.address !== deposit.ownerAddress) throw new Error(`the deposit seed derives ${depositKey.address} at index ${deposit.derivationIndex}, not ${deposit.ownerAddress}`);
  const owner = await signerOf(depositKey.privateKey);
  depositKey.privateKey.fill(0);
  const instructions: Instruction[] = [];
  if (feeExists !== true) instructions.push(getCreateAssociatedTokenIdempotentInstruction({ payer: relayer, ata: feeAccount, owner: toAddress(feeWallet), mint, tokenProgram }));
  const source = toAddress(deposit.tokenAccount);
  if (request.toRecipient > 0n) {
    instructions.push(getTransferCheckedInstruction({ source, mint, destination: recipientAccount, authority: owner, amount: request.toRecipient, decimals: request.tokenDecimals }, { programAddress: tokenProgram }));
  }
  if (request.toOperator > 0n) {
    instructions.push(getTransferCheckedInstruction({ source, mint, destination: feeAccount, authority: owner, amount: request.toOperator, decimals: request.tokenDecimals }, { programAddress: tokenProgram }));
  }
  const signed = await signTransaction(rpc, relayer, instructions);
  await deps.hooks?.afterSign?.();

  const stored = await inTransaction(db, async (trx) => {
    // One signer per payout: a racing worker that stored a transaction first wins; its transaction is followed.
    const now = await listSolanaPayoutTransactions(trx, network.chainId, request.payoutId);
    if (now.length !== earlier) return undefined;
    return insertSolanaPayoutTransaction(
      trx,
      { payoutId: request.payoutId, issuanceId: request.issuanceId, chainId: network.chainId, signature: signed.signature, wireBase64: signed.wireBase64, lastValidBlockHeight: signed.lastValidBlockHeight },
      clock.now(),
    );
  });
  if (stored === undefined) return sendSolanaPayout(deps, request);
  await deps.hooks?.afterStore?.();
  return broadcastStored(deps, stored);
}

/** Sends a stored transaction; trouble reaching the node is thrown (the next call sends it again). */
async function broadcastStored(deps: SendSolanaPayoutDeps, transaction: SolanaPayoutTransaction): Promise<PayoutBroadcast> {
  await sendSigned(deps.rpc, transaction.wireBase64);
  await markSolanaBroadcast(deps.db, transaction.id, deps.clock.now());
  return { kind: 'broadcast', txHash: transaction.signature };
}
