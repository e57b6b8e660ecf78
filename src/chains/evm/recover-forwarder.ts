import { createWalletClient, getAddress, http, isAddress, parseEventLogs, zeroAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../platform/database/database.js';
import { depositForwarderFactoryAbi, invoiceForwarderFactoryAbi } from './contracts/index.js';
import { findForwarder } from './forwarders/index.js';
import { createRpcClient } from './relayer/index.js';

export interface RecoverRequest {
  readonly issuanceId: string;
  /** A token contract, or `native` for the network's coin. */
  readonly asset: string;
  /** The factory owner's key, or the committed delegate's. */
  readonly privateKey: Hex;
  readonly rpcUrl: string;
}

export interface RecoverOutcome {
  readonly txHash: Hex;
  readonly forwarder: Address;
  readonly asset: Address;
  readonly toRecipient: bigint;
  readonly toOperator: bigint;
}

/** Why a recovery cannot be attempted; the CLI prints it as one line. */
export class RecoverRefused extends Error {}

/**
 * The explicit operator command for money a sweep does not move (issue 9;
 * docs/decisions/0007): a late transfer to a settled invoice, another token,
 * native coin sent by mistake. It calls the factory's `recover` with the
 * issuance's committed terms, read from Ivory's record of its forwarder, so
 * the money still goes only along the committed split; the contract refuses
 * any caller but its owner and the committed delegate.
 */
export async function recoverForwarder(db: Db, request: RecoverRequest): Promise<RecoverOutcome> {
  const forwarder = await findForwarder(db, request.issuanceId);
  if (forwarder === undefined) throw new RecoverRefused(`no forwarder is recorded for issuance ${request.issuanceId} (not a live EVM issuance, or not allocated yet)`);
  const asset: Address = request.asset === 'native' ? zeroAddress : isAddress(request.asset, { strict: false }) ? getAddress(request.asset) : zeroAddress;
  if (request.asset !== 'native' && asset === zeroAddress) throw new RecoverRefused('--asset must be a token address or "native"');
  const client = createRpcClient(request.rpcUrl);
  const chainId = await client.getChainId();
  if (chainId !== forwarder.chainId) throw new RecoverRefused(`the node at --rpc-url serves chain ${chainId}, the forwarder lives on chain ${forwarder.chainId}`);
  const abi = forwarder.kind === 'invoice' ? invoiceForwarderFactoryAbi : depositForwarderFactoryAbi;
  const account = privateKeyToAccount(request.privateKey);
  const { request: call } = await client.simulateContract({ account, address: forwarder.factory, abi, functionName: 'recover', args: [forwarder.terms, asset] });
  const wallet = createWalletClient({ account, transport: http(request.rpcUrl) });
  const txHash = await wallet.writeContract({ ...call, chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== 'success') throw new RecoverRefused(`recover transaction ${txHash} reverted`);
  const [recovered] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'Recovered' });
  return {
    txHash,
    forwarder: forwarder.address,
    asset,
    toRecipient: recovered?.args.toRecipient ?? 0n,
    toOperator: recovered?.args.toOperator ?? 0n,
  };
}
