import type { TronApi } from './tron-api.js';
import { TronApiError } from './tron-api.js';

/** A block as Ivory needs it: its number and timestamp (ms), the clock transactions expire by. */
export interface TronBlockStamp {
  readonly number: bigint;
  readonly timestamp: bigint;
}

interface BlockAnswer {
  readonly blockID?: string;
  readonly block_header?: { readonly raw_data?: { readonly number?: number | string; readonly timestamp?: number | string } };
}

function stampOf(path: string, answer: BlockAnswer): TronBlockStamp {
  const raw = answer.block_header?.raw_data;
  if (raw?.timestamp === undefined) throw new TronApiError(path, 'a block without a header');
  // Block 0 has no `number` field: protobuf's JSON leaves zero values out.
  return { number: BigInt(raw.number ?? 0), timestamp: BigInt(raw.timestamp) };
}

/** The newest block the node has. */
export async function headBlock(api: TronApi): Promise<TronBlockStamp> {
  return stampOf('/wallet/getnowblock', await api.call<BlockAnswer>('/wallet/getnowblock', {}));
}

/** The newest solidified block: final, never rolled back. */
export async function solidBlock(api: TronApi): Promise<TronBlockStamp> {
  return stampOf('/walletsolidity/getnowblock', await api.call<BlockAnswer>('/walletsolidity/getnowblock', {}));
}

/** Sun burnt per unit of energy (`getEnergyFee`). */
export async function energyPrice(api: TronApi): Promise<bigint> {
  const answer = await api.call<{ chainParameter?: { key: string; value?: number }[] }>('/wallet/getchainparameters', {});
  const fee = answer.chainParameter?.find((parameter) => parameter.key === 'getEnergyFee');
  if (fee === undefined) throw new TronApiError('/wallet/getchainparameters', 'no getEnergyFee parameter');
  return BigInt(fee.value ?? 0);
}

/** TRX (sun) of an account; 0 for an account the chain does not know yet. */
export async function trxBalance(api: TronApi, wireAddress: string): Promise<bigint> {
  const answer = await api.call<{ balance?: number | string }>('/wallet/getaccount', { address: wireAddress });
  return BigInt(answer.balance ?? 0);
}

/** Energy the account may use now without burning TRX: staked or delegated, less what it used. */
export async function availableEnergy(api: TronApi, wireAddress: string): Promise<bigint> {
  const answer = await api.call<{ EnergyLimit?: number; EnergyUsed?: number }>('/wallet/getaccountresource', { address: wireAddress });
  const left = BigInt(answer.EnergyLimit ?? 0) - BigInt(answer.EnergyUsed ?? 0);
  return left > 0n ? left : 0n;
}

export interface ConstantCallResult {
  /** The call's return data, hex without 0x; empty when it reverted. */
  readonly output: string;
  readonly energyUsed: bigint;
  /** Set when the call reverted (the node's message, decoded when it is hex). */
  readonly revert: string | undefined;
}

/** A call executed on the node's current state and thrown away (a view, an estimate, a simulation). */
export async function constantCall(api: TronApi, call: { readonly owner: string; readonly contract: string; readonly data: string }): Promise<ConstantCallResult> {
  const answer = await api.call<{
    result?: { result?: boolean; code?: string; message?: string };
    energy_used?: number;
    constant_result?: string[];
    transaction?: { ret?: { ret?: string }[] };
  }>('/wallet/triggerconstantcontract', { owner_address: call.owner, contract_address: call.contract, data: strip0x(call.data) });
  const failed = answer.result?.result !== true || answer.transaction?.ret?.[0]?.ret === 'FAILED';
  return {
    output: failed ? '' : (answer.constant_result?.[0] ?? ''),
    energyUsed: BigInt(answer.energy_used ?? 0),
    revert: failed ? readable(answer.result?.message ?? answer.result?.code ?? 'reverted') : undefined,
  };
}

export type TronReceiptResult = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY' | 'OUT_OF_TIME' | string;

export interface TronTransactionInfo {
  readonly blockNumber: bigint;
  readonly blockTimestamp: bigint;
  /** The execution's outcome; a plain TRX transfer has none and counts as SUCCESS. */
  readonly result: TronReceiptResult;
  /** Sun burnt in all (energy, bandwidth). */
  readonly fee: bigint;
  readonly energyUsed: bigint;
  /** A deployment's new contract, `41…` hex. */
  readonly contractAddress: string | undefined;
}

/** The transaction as included in a block (full node), or as solidified (`solid`); undefined when not there. */
export async function transactionInfo(api: TronApi, txId: string, solid: boolean): Promise<TronTransactionInfo | undefined> {
  const path = solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid';
  const answer = await api.call<{
    id?: string;
    blockNumber?: number;
    blockTimeStamp?: number;
    fee?: number;
    receipt?: { result?: string; energy_usage_total?: number };
    contract_address?: string;
  }>(path, { value: txId });
  if (answer.id === undefined || answer.blockNumber === undefined) return undefined;
  return {
    blockNumber: BigInt(answer.blockNumber),
    blockTimestamp: BigInt(answer.blockTimeStamp ?? 0),
    result: answer.receipt?.result ?? 'SUCCESS',
    fee: BigInt(answer.fee ?? 0),
    energyUsed: BigInt(answer.receipt?.energy_usage_total ?? 0),
    contractAddress: answer.contract_address,
  };
}

function strip0x(hex: string): string {
  return hex.startsWith('0x') ? hex.slice(2) : hex;
}

/** java-tron writes some messages as hex of their text. */
function readable(message: string): string {
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    const text = Buffer.from(message, 'hex').toString('utf8');
    if (/^[\x20-\x7e]+$/.test(text)) return text;
  }
  return message;
}

/** The chain id the node's `/jsonrpc` answers (`eth_chainId`). */
export async function jsonRpcChainId(api: TronApi): Promise<number> {
  const response = await fetch(api.jsonRpcUrl, {
    method: 'POST',
    headers: { ...api.headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new TronApiError('/jsonrpc', `HTTP ${response.status}`);
  const answer = (await response.json()) as { result?: unknown };
  if (typeof answer.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(answer.result)) throw new TronApiError('/jsonrpc', 'eth_chainId answered no chain id');
  return Number(BigInt(answer.result));
}
