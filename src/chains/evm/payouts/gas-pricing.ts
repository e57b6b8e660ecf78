import { parseTransaction, type Hex, type PublicClient } from 'viem';

/**
 * What a payout transaction offers per unit of gas. Networks with EIP-1559
 * (a `baseFeePerGas` in their blocks) get a type-2 transaction; networks
 * without it (BNB Chain before its London fork, many L2s and private chains)
 * reject type-2 transactions and are paid with a legacy one, whose single
 * `gasPrice` is stored in both fields: it is the most paid per gas and the
 * whole tip at once, so the relayer's balance checks and fee bumps read the
 * same numbers for both kinds.
 */
export interface Fees {
  readonly type: 'eip1559' | 'legacy';
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** The network's current prices, in the kind of transaction it accepts. */
export async function marketFees(client: PublicClient): Promise<Fees> {
  const block = await client.getBlock({ blockTag: 'latest' });
  if (block.baseFeePerGas === null || block.baseFeePerGas === undefined) {
    const gasPrice = await client.getGasPrice();
    return { type: 'legacy', maxFeePerGas: gasPrice, maxPriorityFeePerGas: gasPrice };
  }
  const fees = await client.estimateFeesPerGas();
  return { type: 'eip1559', maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

/** The fee fields of a transaction to sign, for viem's `signTransaction`. */
export function feeFields(fees: Fees): { type: 'legacy'; gasPrice: bigint } | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
  return fees.type === 'legacy'
    ? { type: 'legacy', gasPrice: fees.maxFeePerGas }
    : { type: 'eip1559', maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

/**
 * Replacement fees: at least 12.5% over the previous ones on both fields
 * (nodes ask for 10%), and at least the market's; the kind stays the
 * previous transaction's, since a replacement replays the same call.
 */
export function bumpedFees(previous: Fees, market: Fees): Fees {
  const raise = (value: bigint) => (value * 9n + 7n) / 8n;
  const maxPriorityFeePerGas = max(raise(previous.maxPriorityFeePerGas), market.maxPriorityFeePerGas);
  const maxFeePerGas = max(max(raise(previous.maxFeePerGas), market.maxFeePerGas), maxPriorityFeePerGas);
  // A legacy price is one number: both fields carry it.
  return previous.type === 'legacy' ? { type: 'legacy', maxFeePerGas, maxPriorityFeePerGas: maxFeePerGas } : { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
}

const max = (left: bigint, right: bigint) => (left > right ? left : right);

/** The fees a stored transaction offered; its kind is read from the signed bytes. */
export function feesOf(transaction: { readonly rawTransaction: Hex; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint }): Fees {
  const type = parseTransaction(transaction.rawTransaction).type === 'legacy' ? 'legacy' : 'eip1559';
  return { type, maxFeePerGas: transaction.maxFeePerGas, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas };
}
