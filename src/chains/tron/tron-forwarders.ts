import { decodeFunctionResult, encodeFunctionData, getAddress, type Address } from 'viem';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database/database.js';
import type { AddressRequest } from '../chain-adapter.js';
import { allocateForwarder, forwarderCreationCode, forwarderSalt, invoiceForwarderFactoryAbi, type PredictForwarder } from '../evm/index.js';
import type { TronApi } from './tron-api.js';
import { tvmCreate2Address } from './tron-create2.js';
import { tronAddress, tronWireAddress, tvmAddress } from './tron-evm-address.js';
import type { TronNetwork } from './tron-network.js';
import { constantCall } from './tron-node-reads.js';

/**
 * What a Tron network's forwarders are computed from, read once from its
 * factories: each factory's implementation (on the TVM a contract created by
 * a contract gets an address derived from the creating transaction, not from
 * a nonce, so it is read, never predicted) and the fee wallet new terms commit.
 */
export interface TronFactories {
  readonly feeWallet: Address;
  readonly implementations: ReadonlyMap<Address, Address>;
}

export async function readTronFactories(api: TronApi, network: TronNetwork): Promise<TronFactories> {
  const { mainFactory, invoiceFactory } = network.tvm;
  const read = async (factory: Address, functionName: 'implementation' | 'feeWallet'): Promise<Address> => {
    const wire = tronWireAddress(factory);
    const result = await constantCall(api, { owner: wire, contract: wire, data: encodeFunctionData({ abi: invoiceForwarderFactoryAbi, functionName }) });
    if (result.revert !== undefined || result.output === '') throw new Error(`factory ${tronAddress(factory)} answered no ${functionName} (${result.revert ?? 'empty'})`);
    return getAddress(decodeFunctionResult({ abi: invoiceForwarderFactoryAbi, functionName, data: `0x${result.output}` }));
  };
  const configured = network.configuredFeeWallet;
  return {
    feeWallet: configured !== undefined ? tvmAddress(configured) : await read(invoiceFactory, 'feeWallet'),
    implementations: new Map([
      [mainFactory, await read(mainFactory, 'implementation')],
      [invoiceFactory, await read(invoiceFactory, 'implementation')],
    ]),
  };
}

/** The TVM's CREATE2 rule for the factories' forwarders (0x41 in front, the factory as deployer). */
export function tvmForwarderPredictor(factories: TronFactories): PredictForwarder {
  return (factory, terms) => {
    const implementation = factories.implementations.get(factory);
    if (implementation === undefined) throw new Error(`no implementation known for factory ${factory}`);
    const address = tvmCreate2Address(Buffer.from(factory.slice(2), 'hex'), forwarderSalt(terms), forwarderCreationCode(implementation));
    return getAddress(`0x${Buffer.from(address).toString('hex')}`);
  };
}

/**
 * An issuance's `T…` payment address: its forwarder's TVM CREATE2 address,
 * stored with its terms (in `evm_forwarders`, TVM hex) before it is given out.
 */
export async function allocateTronForwarder(
  deps: { readonly db: Db; readonly clock: Clock; readonly network: TronNetwork; readonly factories: TronFactories },
  request: AddressRequest,
): Promise<string> {
  const { tvm } = deps.network;
  const tvmRequest: AddressRequest = {
    ...request,
    token: tvmAddress(request.token),
    ...(request.recipient === undefined ? {} : { recipient: tvmAddress(request.recipient) }),
    // Tron shops have no delegate (FamilyRules.hasDelegate).
    delegate: null,
  };
  const address = await allocateForwarder(
    { db: deps.db, clock: deps.clock, network: { ...tvm, feeWallet: deps.factories.feeWallet }, predict: tvmForwarderPredictor(deps.factories) },
    tvmRequest,
  );
  return tronAddress(address);
}
