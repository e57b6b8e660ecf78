import { getAddress, keccak256, type Address, type Hex, type Log } from 'viem';
import type { Clock } from '../../../platform/clock.js';
import type { SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { EvmAccess } from '../evm-access.js';
import { broadcastRaw } from '../payouts/broadcast.js';
import { feeFields, marketFees } from '../payouts/gas-pricing.js';
import { ensureRelayer, relayerAccount } from './relayer-keys.js';
import { lockRelayer, releaseNonce, setNextNonce } from './relayer.repository.js';
import { createRpcClient } from './rpc-client.js';

export interface RelayerCallDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
}

export interface RelayerCall {
  readonly chainId: number;
  readonly access: EvmAccess;
  readonly to: Address;
  readonly data: Hex;
  /** The most the call may cost the relayer: gas limit × max fee per gas, in wei. */
  readonly maxCostWei: bigint;
  /**
   * Called with the transaction's hash after it is signed and its nonce taken (committed), before
   * it is broadcast: the caller records it first (record the intent, commit, act).
   */
  readonly beforeBroadcast: (txHash: Hex) => Promise<void>;
  /** How long to wait for the receipt; default 60 s. */
  readonly receiptTimeoutMs?: number;
}

export type RelayerCallOutcome =
  /** Mined (succeeded or reverted on chain): the receipt's facts. */
  | { readonly kind: 'mined'; readonly txHash: Hex; readonly success: boolean; readonly gasUsed: bigint; readonly effectiveGasPrice: bigint; readonly logs: readonly Log[] }
  /** The call reverts in simulation: nothing was signed. */
  | { readonly kind: 'reverts'; readonly message: string }
  /** The call would cost more than `maxCostWei`: nothing was signed. */
  | { readonly kind: 'over_cap'; readonly costWei: bigint }
  /** The relayer cannot pay the gas: nothing was signed, or the node refused the signed transaction for it (its nonce given back). */
  | { readonly kind: 'waiting_gas'; readonly neededWei: bigint; readonly balanceWei: bigint }
  /** Signed, handed to `beforeBroadcast`, but not seen mined in time (the node refused it, or is slow). */
  | { readonly kind: 'unconfirmed'; readonly txHash: Hex; readonly message: string };

/** Gas estimates leave this much headroom, as sweeps do. */
const GAS_HEADROOM_PERCENT = 25n;

/**
 * Has the network's relayer send one contract call that someone else authorised (x402: a token's
 * `transferWithAuthorization`), paying its gas, and waits for the receipt. The call is simulated
 * and priced first and refused, unsigned, when it reverts, costs more than `maxCostWei` or the
 * relayer cannot pay. The nonce is the relayer's stored one (raised to the chain's pending count),
 * taken under the relayer row's lock like a sweep's, so calls and sweeps never share a nonce; a
 * nonce taken for a transaction the node refused outright (insufficient funds) is given back
 * when no later one was taken meanwhile. Never holds a database transaction across an RPC call.
 */
export async function sendRelayerCall(deps: RelayerCallDeps, call: RelayerCall): Promise<RelayerCallOutcome> {
  const client = createRpcClient(call.access.rpcUrls);
  const relayer = await ensureRelayer(deps.db, deps.secrets, call.chainId);
  let estimated: bigint;
  try {
    estimated = await client.estimateGas({ account: relayer.address, to: call.to, data: call.data });
  } catch (error) {
    return { kind: 'reverts', message: firstLine(error) };
  }
  const gasLimit = estimated + (estimated * GAS_HEADROOM_PERCENT) / 100n;
  const fees = await marketFees(client);
  const costWei = gasLimit * fees.maxFeePerGas;
  if (costWei > call.maxCostWei) return { kind: 'over_cap', costWei };
  const balanceWei = await client.getBalance({ address: relayer.address });
  if (balanceWei < costWei) return { kind: 'waiting_gas', neededWei: costWei, balanceWei };
  const chainNonce = BigInt(await client.getTransactionCount({ address: relayer.address, blockTag: 'pending' }));

  const signed = await inTransaction(deps.db, async (trx) => {
    const row = await lockRelayer(trx, call.chainId);
    if (row === undefined) throw new Error(`no relayer for chain ${call.chainId}`);
    const nonce = row.nextNonce > chainNonce ? row.nextNonce : chainNonce;
    const rawTransaction = await relayerAccount(deps.secrets, row).signTransaction({
      chainId: call.chainId,
      nonce: Number(nonce),
      to: getAddress(call.to),
      data: call.data,
      value: 0n,
      gas: gasLimit,
      ...feeFields(fees),
    });
    await setNextNonce(trx, call.chainId, nonce + 1n, deps.clock.now());
    return { nonce, rawTransaction, txHash: keccak256(rawTransaction) };
  });
  await call.beforeBroadcast(signed.txHash);

  let uncertain: string | undefined;
  try {
    if ((await broadcastRaw(client, signed.rawTransaction)) === 'insufficient_funds') {
      // Refused outright, so in no pool: the nonce goes back unless a later one was taken meanwhile.
      await inTransaction(deps.db, (trx) => releaseNonce(trx, call.chainId, signed.nonce, deps.clock.now()));
      return { kind: 'waiting_gas', neededWei: costWei, balanceWei };
    }
  } catch (error) {
    // Unknown: the node may hold it. Wait for the receipt as if accepted; the nonce stays taken.
    uncertain = firstLine(error);
  }
  try {
    const receipt = await client.waitForTransactionReceipt({ hash: signed.txHash, timeout: call.receiptTimeoutMs ?? 60_000, pollingInterval: 250 });
    return { kind: 'mined', txHash: signed.txHash, success: receipt.status === 'success', gasUsed: receipt.gasUsed, effectiveGasPrice: receipt.effectiveGasPrice, logs: receipt.logs };
  } catch (error) {
    return { kind: 'unconfirmed', txHash: signed.txHash, message: uncertain ?? firstLine(error) };
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
