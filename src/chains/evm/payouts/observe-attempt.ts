import { TransactionReceiptNotFoundError, type Address, type PublicClient } from 'viem';
import type { MinedIn, PayoutTransaction } from './payout-transactions.repository.js';

/**
 * What the chain says of one attempt: the transactions signed for one nonce
 * of one payout (the first signature and its fee bumps). Reads only; the
 * caller records what follows from it.
 */
export type AttemptObservation =
  /** One of them is in a canonical block. `atDepth`: the network's confirmation depth is reached. */
  | { readonly kind: 'mined'; readonly transaction: PayoutTransaction; readonly minedIn: MinedIn; readonly atDepth: boolean }
  /** None of them is mined, and the nonce is used at depth: by a transaction that is none of ours. */
  | { readonly kind: 'nonce_taken' }
  /** None of them is mined and the nonce is free. `nextNonce`: the relayer's mined transaction count; `head`: the node's head when asked. */
  | { readonly kind: 'unmined'; readonly nextNonce: bigint; readonly head: bigint };

/**
 * Reads the receipts of the attempt's transactions, then the relayer's
 * transaction count at depth. The order matters: the head is read first, so
 * a nonce counted at (head − depth) was used in a block whose receipt existed
 * when the receipts were asked; none of ours among them proves that another
 * transaction took the nonce.
 */
export async function observeAttempt(
  client: PublicClient,
  confirmations: number,
  relayer: Address,
  attempt: readonly PayoutTransaction[],
): Promise<AttemptObservation> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  for (const transaction of attempt) {
    const receipt = await receiptOf(client, transaction.txHash);
    if (receipt === undefined) continue;
    return {
      kind: 'mined',
      transaction,
      minedIn: {
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        success: receipt.status === 'success',
        gasUsed: receipt.gasUsed,
        effectiveGasPrice: receipt.effectiveGasPrice,
      },
      atDepth: head - receipt.blockNumber >= BigInt(confirmations),
    };
  }
  const nonce = attempt[0]?.nonce;
  if (nonce === undefined) throw new Error('observeAttempt: an attempt has at least one transaction');
  const depthBlock = head > BigInt(confirmations) ? head - BigInt(confirmations) : 0n;
  const usedAtDepth = BigInt(await client.getTransactionCount({ address: relayer, blockNumber: depthBlock }));
  if (usedAtDepth > nonce) return { kind: 'nonce_taken' };
  const nextNonce = BigInt(await client.getTransactionCount({ address: relayer, blockTag: 'latest' }));
  return { kind: 'unmined', nextNonce, head };
}

async function receiptOf(client: PublicClient, hash: `0x${string}`) {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
}
