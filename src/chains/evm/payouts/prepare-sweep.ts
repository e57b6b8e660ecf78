import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import { depositForwarderFactoryAbi, invoiceForwarderFactoryAbi } from '../contracts/index.js';
import type { Forwarder } from '../forwarders/index.js';
import { marketFees, type Fees } from './gas-pricing.js';

/** What one forwarder's sweep would do now, as its factory's `sweep` simulates it. */
export type SweepInspection =
  | {
      readonly kind: 'sweepable';
      /** The split the contract will make, as simulated now. */
      readonly toRecipient: bigint;
      readonly toOperator: bigint;
    }
  /** The invoice's forwarder was swept already (by its delegate): nothing for Ivory to send. */
  | { readonly kind: 'settled' }
  /** The forwarder holds nothing sweepable (empty; below the invoice amount or the deposit's minimum sweep). */
  | { readonly kind: 'nothing_to_sweep'; readonly balance: bigint };

/** A call ready to sign, or why the relayer cannot pay for it now. */
export type CallPlan =
  | {
      readonly kind: 'ready';
      readonly to: Address;
      readonly data: Hex;
      readonly gasLimit: bigint;
      readonly fees: Fees;
      /** The relayer's pending transaction count (the stored nonce is raised to it). */
      readonly chainNonce: bigint;
    }
  /** The relayer lacks `needed` wei for gasLimit × maxFeePerGas (`gas.wait`). */
  | { readonly kind: 'waiting_gas'; readonly needed: bigint; readonly balance: bigint };

/** Gas estimates leave this much headroom (a state change between estimate and inclusion). */
const GAS_HEADROOM_PERCENT = 25n;

const abiOf = (forwarder: Forwarder) => (forwarder.kind === 'invoice' ? invoiceForwarderFactoryAbi : depositForwarderFactoryAbi);

/**
 * Reads what a sweep of one forwarder would do, outside any database
 * transaction: the forwarder's token balance (re-read before every new
 * sweep) and a simulation of `sweep(terms)` from the relayer (a sweep that
 * would revert is never signed, alone or in a batch).
 */
export async function inspectSweep(client: PublicClient, forwarder: Forwarder, relayer: Address): Promise<SweepInspection> {
  const { terms } = forwarder;
  if (forwarder.kind === 'invoice') {
    const settled = await client.readContract({ address: forwarder.factory, abi: invoiceForwarderFactoryAbi, functionName: 'settled', args: [forwarder.address] });
    if (settled) return { kind: 'settled' };
  }
  const balance = await client.readContract({ address: terms.token, abi: erc20Abi, functionName: 'balanceOf', args: [forwarder.address] });
  // Invoices sweep at their amount, deposits at their committed minimum sweep (0: any balance).
  if (balance === 0n || balance < terms.amount) return { kind: 'nothing_to_sweep', balance };
  const { result } = await client.simulateContract({ address: forwarder.factory, abi: abiOf(forwarder), functionName: 'sweep', args: [terms], account: relayer });
  const [toRecipient, toOperator] = result;
  return { kind: 'sweepable', toRecipient, toOperator };
}

/** The call data of a sweep of these forwarders of ONE factory: `sweep(terms)` for one, `sweepBatch(terms[])` for several. */
export function sweepCallData(forwarders: readonly Forwarder[]): Hex {
  const [first, ...rest] = forwarders;
  if (first === undefined) throw new Error('a sweep sweeps at least one forwarder');
  if (rest.some((forwarder) => forwarder.factory !== first.factory)) throw new Error('a batched sweep calls one factory');
  const abi = abiOf(first);
  return rest.length === 0
    ? encodeFunctionData({ abi, functionName: 'sweep', args: [first.terms] })
    : encodeFunctionData({ abi, functionName: 'sweepBatch', args: [forwarders.map((forwarder) => forwarder.terms)] });
}

/**
 * The gas limit (estimate, which also simulates the whole call: it throws
 * when the call would revert), the fees (EIP-1559, or legacy where the
 * network has no base fee), and whether the relayer's native balance pays
 * for them.
 */
export async function planCall(client: PublicClient, to: Address, data: Hex, relayer: Address): Promise<CallPlan> {
  const estimated = await client.estimateGas({ account: relayer, to, data });
  const gasLimit = estimated + (estimated * GAS_HEADROOM_PERCENT) / 100n;
  const fees = await marketFees(client);
  const needed = gasLimit * fees.maxFeePerGas;
  const native = await client.getBalance({ address: relayer });
  if (native < needed) return { kind: 'waiting_gas', needed, balance: native };
  const chainNonce = BigInt(await client.getTransactionCount({ address: relayer, blockTag: 'pending' }));
  return { kind: 'ready', to, data, gasLimit, fees, chainNonce };
}
