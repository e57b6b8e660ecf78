import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import { depositForwarderFactoryAbi, invoiceForwarderFactoryAbi } from '../contracts/index.js';
import type { Forwarder } from '../forwarders/index.js';
import { marketFees, type Fees } from './gas-pricing.js';

/** A sweep ready to sign, or why none can be sent now. */
export type SweepPlan =
  | {
      readonly kind: 'ready';
      readonly to: Address;
      readonly data: Hex;
      readonly gasLimit: bigint;
      readonly fees: Fees;
      /** The split the contract will make, as simulated now. */
      readonly toRecipient: bigint;
      readonly toOperator: bigint;
      /** The relayer's pending transaction count (the stored nonce is raised to it). */
      readonly chainNonce: bigint;
    }
  /** The relayer lacks `needed` wei for gasLimit × maxFeePerGas (`gas.wait`). */
  | { readonly kind: 'waiting_gas'; readonly needed: bigint; readonly balance: bigint }
  /** The invoice's forwarder was swept already (by its delegate): nothing for Ivory to send. */
  | { readonly kind: 'settled' }
  /** The forwarder holds nothing sweepable (empty; below the invoice amount or the deposit's minimum sweep). */
  | { readonly kind: 'nothing_to_sweep'; readonly balance: bigint };

/** Gas estimates leave this much headroom (a state change between estimate and inclusion). */
const GAS_HEADROOM_PERCENT = 25n;

/**
 * Reads what a new sweep needs, outside any database transaction: the
 * forwarder's token balance (re-read before every new sweep), a simulation of
 * `sweep(terms)` from the relayer (a sweep that would revert is never signed),
 * the gas limit, the fees (EIP-1559, or legacy where the network has no base fee), and the relayer's native balance.
 */
export async function prepareSweep(client: PublicClient, forwarder: Forwarder, relayer: Address): Promise<SweepPlan> {
  const { terms } = forwarder;
  if (forwarder.kind === 'invoice') {
    const settled = await client.readContract({ address: forwarder.factory, abi: invoiceForwarderFactoryAbi, functionName: 'settled', args: [forwarder.address] });
    if (settled) return { kind: 'settled' };
  }
  const balance = await client.readContract({ address: terms.token, abi: erc20Abi, functionName: 'balanceOf', args: [forwarder.address] });
  // Invoices sweep at their amount, deposits at their committed minimum sweep (0: any balance).
  if (balance === 0n || balance < terms.amount) return { kind: 'nothing_to_sweep', balance };

  const abi = forwarder.kind === 'invoice' ? invoiceForwarderFactoryAbi : depositForwarderFactoryAbi;
  const call = { address: forwarder.factory, abi, functionName: 'sweep', args: [terms], account: relayer } as const;
  const { result } = await client.simulateContract(call);
  const [toRecipient, toOperator] = result;
  const estimated = await client.estimateContractGas(call);
  const gasLimit = estimated + (estimated * GAS_HEADROOM_PERCENT) / 100n;
  const fees = await marketFees(client);
  const needed = gasLimit * fees.maxFeePerGas;
  const native = await client.getBalance({ address: relayer });
  if (native < needed) return { kind: 'waiting_gas', needed, balance: native };
  const chainNonce = BigInt(await client.getTransactionCount({ address: relayer, blockTag: 'pending' }));
  return {
    kind: 'ready',
    to: forwarder.factory,
    data: encodeFunctionData({ abi, functionName: 'sweep', args: [terms] }),
    gasLimit,
    fees,
    toRecipient,
    toOperator,
    chainNonce,
  };
}
