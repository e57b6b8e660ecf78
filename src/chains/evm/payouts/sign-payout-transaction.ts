import { getAddress, keccak256, parseTransaction, type Address, type Hex } from 'viem';
import type { Clock } from '../../../platform/clock.js';
import { newId, type SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import { lockRelayer, relayerAccount, setNextNonce } from '../relayer/index.js';
import { feeFields, feesOf, type Fees } from './gas-pricing.js';
import { insertPayoutTransaction, listAttempt, listPayoutTransactions, type PayoutTransaction } from './payout-transactions.repository.js';

/**
 * Test seams for the crash-safety proofs: a hook that throws stands for the
 * process dying at that point. Never set in production.
 */
export interface SigningHooks {
  /** After the transaction is signed, before the database transaction that stores it commits. */
  afterSign?(transaction: PayoutTransaction): void | Promise<void>;
  /** After the signed transaction is stored and committed, before it is broadcast. */
  afterCommit?(transaction: PayoutTransaction): void | Promise<void>;
}

export interface SigningDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly chainId: number;
  readonly hooks?: SigningHooks;
}


/** Statuses in which an attempt still holds its payout: no other may be signed. */
export const LIVE_STATUSES = ['pending', 'mined', 'confirmed'] as const;

export type SignOutcome =
  | { readonly kind: 'signed'; readonly transaction: PayoutTransaction }
  /** Another process signed for this payout (or one of these payouts) first, or a previous attempt is still alive: nothing was signed. */
  | { readonly kind: 'in_flight'; readonly transaction: PayoutTransaction };

/**
 * Signs the next attempt of one payout (`sweep`) or of several (`sweepBatch`,
 * `payoutIds` in the order of the call's terms), in ONE database transaction:
 * lock the relayer row (so one signer per network at a time), check that no
 * attempt of any of these payouts is alive, take the nonce, sign, store the
 * raw transaction, its hash and its members, advance the nonce. The caller broadcasts after the commit. The
 * nonce is the stored one, raised to the chain's pending count if the key
 * was also used elsewhere; never viem's nonce manager, which forgets on a crash.
 */
export async function signNewAttempt(
  deps: SigningDeps,
  input: { readonly payoutIds: readonly string[]; readonly to: Address; readonly data: Hex; readonly gasLimit: bigint; readonly fees: Fees; readonly chainNonce: bigint },
): Promise<SignOutcome> {
  const outcome = await inTransaction(deps.db, async (trx): Promise<SignOutcome> => {
    const relayer = await lockRelayer(trx, deps.chainId);
    if (relayer === undefined) throw new Error(`no relayer for chain ${deps.chainId}`);
    for (const payoutId of input.payoutIds) {
      const alive = (await listPayoutTransactions(trx, deps.chainId, payoutId)).find((row) => isLive(row));
      if (alive !== undefined) return { kind: 'in_flight', transaction: alive };
    }
    const nonce = relayer.nextNonce > input.chainNonce ? relayer.nextNonce : input.chainNonce;
    const account = relayerAccount(deps.secrets, relayer);
    const rawTransaction = await account.signTransaction({
      chainId: deps.chainId,
      nonce: Number(nonce),
      to: input.to,
      data: input.data,
      value: 0n,
      gas: input.gasLimit,
      ...feeFields(input.fees),
    });
    const transaction = stored(deps, { payoutIds: input.payoutIds, relayer: getAddress(relayer.address), nonce, replacement: 0, rawTransaction, gasLimit: input.gasLimit, fees: input.fees });
    await deps.hooks?.afterSign?.(transaction);
    await insertPayoutTransaction(trx, transaction);
    await setNextNonce(trx, deps.chainId, nonce + 1n, deps.clock.now());
    return { kind: 'signed', transaction };
  });
  if (outcome.kind === 'signed') await deps.hooks?.afterCommit?.(outcome.transaction);
  return outcome;
}

/**
 * Signs a fee bump of `previous`: the same call with the same nonce and
 * higher fees, stored as the attempt's next replacement. Nothing is signed
 * (undefined) when `previous` is no longer the newest pending transaction of
 * its nonce: another process bumped it, or it was mined meanwhile.
 */
export async function signReplacement(deps: SigningDeps, previous: PayoutTransaction, fees: Fees): Promise<PayoutTransaction | undefined> {
  return inTransaction(deps.db, async (trx) => {
    const relayer = await lockRelayer(trx, deps.chainId);
    if (relayer === undefined || getAddress(relayer.address) !== previous.relayer) return undefined;
    const [newest] = await listAttempt(trx, deps.chainId, previous.relayer, previous.nonce);
    if (newest === undefined || newest.id !== previous.id || newest.status !== 'pending') return undefined;
    const call = parseTransaction(previous.rawTransaction);
    if (call.to === undefined || call.to === null || call.gas === undefined) throw new Error(`stored transaction ${previous.txHash} has no call to replay`);
    const rawTransaction = await relayerAccount(deps.secrets, relayer).signTransaction({
      chainId: deps.chainId,
      nonce: Number(previous.nonce),
      to: call.to,
      data: call.data ?? '0x',
      value: 0n,
      gas: call.gas,
      // The replacement is of the previous one's kind, whatever `fees` says.
      ...feeFields({ ...fees, type: feesOf(previous).type }),
    });
    const transaction = stored(deps, {
      payoutIds: previous.payoutIds,
      relayer: previous.relayer,
      nonce: previous.nonce,
      replacement: previous.replacement + 1,
      rawTransaction,
      gasLimit: call.gas,
      fees,
    });
    await insertPayoutTransaction(trx, transaction);
    return transaction;
  });
}

function isLive(row: PayoutTransaction): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(row.status);
}

function stored(
  deps: SigningDeps,
  input: { payoutIds: readonly string[]; relayer: Address; nonce: bigint; replacement: number; rawTransaction: Hex; gasLimit: bigint; fees: Fees },
): PayoutTransaction {
  return {
    id: newId(),
    payoutIds: input.payoutIds,
    chainId: deps.chainId,
    relayer: input.relayer,
    nonce: input.nonce,
    replacement: input.replacement,
    rawTransaction: input.rawTransaction,
    txHash: keccak256(input.rawTransaction),
    gasLimit: input.gasLimit,
    maxFeePerGas: input.fees.maxFeePerGas,
    maxPriorityFeePerGas: input.fees.maxPriorityFeePerGas,
    status: 'pending',
    createdAt: deps.clock.now(),
    broadcastAt: null,
    minedBlockNumber: null,
    minedBlockHash: null,
  };
}
