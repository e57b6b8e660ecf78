import { keccak256, sha256, toBytes } from 'viem';
import { formatAddress, fromHex, hex, parseAddress } from './address.js';
import { headerJson, transactionJson, unsignedTransactionJson, type SignedTransaction } from './block.js';
import type { Block, ExecutionInfo, TronChain } from './chain.js';
import { deploymentAddress } from './evm.js';
import { energyLeft, freeNetLeft, recovered } from './resources.js';
import { abiFromJson, decodeRaw, encodeRaw, rawFromJson, type ContractCall, type RawTransaction } from './transaction.js';

type Json = Record<string, unknown>;

/** Builds an unsigned transaction on the head block: reference block, expiration, timestamp. */
type BuildUnsigned = (contract: ContractCall, feeLimit: bigint, permissionId: number) => RawTransaction;

/** A request's body (POST) or query (GET), merged; `visible` read once. */
export interface WalletRequest {
  body: Json;
  visible: boolean;
}

const TOTAL_NET_LIMIT = 43_200_000_000;
const TOTAL_NET_WEIGHT = 26_000_000_000;
const TOTAL_ENERGY_LIMIT = 180_000_000_000;
const TOTAL_ENERGY_WEIGHT = 19_000_000_000;

/**
 * java-tron's HTTP endpoints this node serves, by path, each answering java-tron's JSON.
 * `expirationMs` is how long a transaction the node builds stays valid after the head block
 * (java-tron's `trx.expiration.timeInMilliseconds`, 60 s by default).
 */
export function walletRoutes(chain: TronChain, expirationMs: number): Map<string, (request: WalletRequest) => Promise<Json>> {
  const unsigned = (contract: ContractCall, feeLimit: bigint, permissionId: number): RawTransaction => {
    const head = chain.head();
    return {
      refBlockBytes: head.id.slice(6, 8),
      refBlockHash: head.id.slice(8, 16),
      expiration: head.header.timestamp + expirationMs,
      timestamp: Date.now(),
      feeLimit,
      data: new Uint8Array(),
      contract,
      permissionId,
    };
  };
  const routes = new Map<string, (request: WalletRequest) => Promise<Json>>();
  routes.set('/wallet/getnowblock', async ({ visible }) => blockJson(chain.head(), visible, true));
  routes.set('/walletsolidity/getnowblock', async ({ visible }) => blockJson(chain.solid(), visible, true));
  routes.set('/wallet/getblockbynum', async ({ body, visible }) => {
    const block = chain.blocks[Number(body.num)];
    return block === undefined ? {} : blockJson(block, visible, true);
  });
  routes.set('/walletsolidity/getblockbynum', async ({ body, visible }) => {
    const number = Number(body.num);
    const block = number <= chain.solidNumber ? chain.blocks[number] : undefined;
    return block === undefined ? {} : blockJson(block, visible, true);
  });
  routes.set('/wallet/getblockbyid', async ({ body, visible }) => {
    const block = chain.blocks.find((candidate) => candidate.idHex === String(body.value ?? '').toLowerCase());
    return block === undefined ? {} : blockJson(block, visible, true);
  });
  routes.set('/wallet/getblock', async ({ body, visible }) => {
    const wanted = body.id_or_num;
    const detail = body.detail === true || body.detail === 'true';
    let block: Block | undefined = chain.head();
    if (typeof wanted === 'string' && wanted.length === 64) block = chain.blocks.find((candidate) => candidate.idHex === wanted.toLowerCase());
    else if (wanted !== undefined && wanted !== '') block = chain.blocks[Number(wanted)];
    return block === undefined ? {} : blockJson(block, visible, detail);
  });
  routes.set('/wallet/getchainparameters', async () => ({ chainParameter: chainParameters(chain) }));
  routes.set('/wallet/getaccount', async ({ body, visible }) => accountJson(chain, requireAddress(body.address, 'address'), visible));
  routes.set('/walletsolidity/getaccount', async ({ body, visible }) => accountJson(chain, requireAddress(body.address, 'address'), visible));
  routes.set('/wallet/getaccountresource', async ({ body }) => accountResourceJson(chain, requireAddress(body.address, 'address')));
  routes.set('/wallet/triggerconstantcontract', async (request) => triggerConstant(chain, unsigned, request));
  routes.set('/wallet/triggersmartcontract', async (request) => triggerSmart(chain, unsigned, request));
  routes.set('/wallet/deploycontract', async (request) => deployContract(unsigned, request));
  routes.set('/wallet/createtransaction', async (request) => createTransaction(chain, unsigned, request));
  routes.set('/wallet/broadcasttransaction', async ({ body }) => broadcast(chain, body));
  routes.set('/wallet/gettransactioninfobyid', async ({ body }) => transactionInfo(chain, String(body.value ?? ''), false));
  routes.set('/walletsolidity/gettransactioninfobyid', async ({ body }) => transactionInfo(chain, String(body.value ?? ''), true));
  routes.set('/wallet/gettransactionbyid', async ({ body, visible }) => {
    const found = chain.findTransaction(String(body.value ?? '').toLowerCase());
    return found === undefined ? {} : transactionJson(found.info.transaction, visible, contractRet(found.info));
  });
  return routes;
}

export function blockJson(block: Block, visible: boolean, detail: boolean): Json {
  const json: Json = { blockID: block.idHex, block_header: headerJson(block.header, block.witnessSignature, visible) };
  if (detail && block.transactions.length > 0) {
    json.transactions = block.infos.map((info) => transactionJson(info.transaction, visible, contractRet(info)));
  }
  return json;
}

function contractRet(info: ExecutionInfo): string {
  return info.receipt.result ?? 'SUCCESS';
}

function chainParameters(chain: TronChain): { key: string; value?: number }[] {
  const parameters = chain.parameters;
  return [
    { key: 'getMaintenanceTimeInterval', value: 21_600_000 },
    { key: 'getAccountUpgradeCost', value: 9_999_000_000 },
    { key: 'getCreateAccountFee', value: 100_000 },
    { key: 'getTransactionFee', value: Number(parameters.transactionFee) },
    { key: 'getAssetIssueFee', value: 1_024_000_000 },
    { key: 'getWitnessPayPerBlock', value: 8_000_000 },
    { key: 'getWitnessStandbyAllowance', value: 115_200_000_000 },
    { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 },
    { key: 'getCreateNewAccountBandwidthRate', value: 1 },
    { key: 'getAllowCreationOfContracts', value: 1 },
    { key: 'getEnergyFee', value: Number(parameters.energyFee) },
    { key: 'getMaxCpuTimeOfOneTx', value: 80 },
    { key: 'getAllowTvmConstantinople', value: 1 },
    { key: 'getAllowTvmSolidity059', value: 1 },
    { key: 'getAllowTvmIstanbul', value: 1 },
    { key: 'getAllowTvmLondon', value: 1 },
    { key: 'getAllowTvmShangHai', value: 1 },
    { key: 'getMaxFeeLimit', value: Number(parameters.maxFeeLimit) },
    { key: 'getFreeNetLimit', value: parameters.freeNetLimit },
    { key: 'getTotalNetLimit', value: TOTAL_NET_LIMIT },
    { key: 'getTotalEnergyLimit', value: TOTAL_ENERGY_LIMIT },
  ];
}

async function accountJson(chain: TronChain, address: Uint8Array, visible: boolean): Promise<Json> {
  const account = await chain.account(address);
  if (!account.exists) return {};
  const now = chain.head().header.timestamp;
  const json: Json = { address: formatAddress(address, visible) };
  if (account.balance !== 0n) json.balance = Number(account.balance);
  const resources = account.resources;
  if (resources !== undefined) {
    json.create_time = resources.createTime;
    if (resources.latestOperationTime !== 0) json.latest_opration_time = resources.latestOperationTime;
    const freeNetUsed = recovered(resources.freeNetUsed, resources.freeNetTime, now);
    if (freeNetUsed !== 0) json.free_net_usage = freeNetUsed;
    if (resources.freeNetTime !== 0) json.latest_consume_free_time = resources.freeNetTime;
    const energyUsed = recovered(resources.energyUsed, resources.energyTime, now);
    const accountResource: Json = {};
    if (energyUsed !== 0) accountResource.energy_usage = energyUsed;
    if (resources.energyTime !== 0) accountResource.latest_consume_time_for_energy = resources.energyTime;
    json.account_resource = accountResource;
  }
  if (account.isContract) json.type = 'Contract';
  return json;
}

async function accountResourceJson(chain: TronChain, address: Uint8Array): Promise<Json> {
  const account = await chain.account(address);
  if (!account.exists) return {};
  const now = chain.head().header.timestamp;
  const resources = account.resources;
  const freeNetUsed = chain.parameters.freeNetLimit - freeNetLeft(resources, chain.parameters.freeNetLimit, now);
  const energyLimit = resources?.energyLimit ?? 0;
  const energyUsed = energyLimit - energyLeft(resources, now);
  const json: Json = {};
  if (freeNetUsed !== 0) json.freeNetUsed = freeNetUsed;
  json.freeNetLimit = chain.parameters.freeNetLimit;
  json.TotalNetLimit = TOTAL_NET_LIMIT;
  json.TotalNetWeight = TOTAL_NET_WEIGHT;
  if (energyUsed !== 0) json.EnergyUsed = energyUsed;
  if (energyLimit !== 0) json.EnergyLimit = energyLimit;
  json.TotalEnergyLimit = TOTAL_ENERGY_LIMIT;
  json.TotalEnergyWeight = TOTAL_ENERGY_WEIGHT;
  return json;
}

/** call data from `data`, or from `function_selector` + `parameter` as java-tron builds it. */
function callData(body: Json): Uint8Array {
  if (typeof body.function_selector === 'string' && body.function_selector !== '') {
    const selector = keccak256(toBytes(body.function_selector.replace(/\s/g, '')), 'bytes').slice(0, 4);
    const parameter = fromHex(String(body.parameter ?? ''));
    const data = new Uint8Array(4 + parameter.length);
    data.set(selector);
    data.set(parameter, 4);
    return data;
  }
  return fromHex(String(body.data ?? ''));
}

function integer(value: unknown): bigint {
  if (value === undefined || value === null || value === '') return 0n;
  return BigInt(Number(value));
}

function validationFailure(message: string): Json {
  return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: hex(toBytes(message)) } };
}

async function triggerConstant(chain: TronChain, unsigned: BuildUnsigned, { body, visible }: WalletRequest): Promise<Json> {
  const owner = parseAddress(body.owner_address) ?? new Uint8Array(20);
  const contract = requireAddress(body.contract_address, 'contract_address');
  const data = callData(body);
  const callValue = integer(body.call_value);
  const target = await chain.account(contract);
  if (!target.isContract) return validationFailure('No contract or not a valid smart contract');
  const result = await chain.constantCall(owner, contract, data, callValue);
  const contractCall: ContractCall = { type: 'TriggerSmartContract', owner, contract, callValue, data, callTokenValue: integer(body.call_token_value), tokenId: integer(body.token_id) };
  const transaction = unsignedTransactionJson(unsigned(contractCall, 0n, 0), visible);
  // java-tron answers a failed constant call with result.result still true, a message and a FAILED ret.
  const failed = result.error !== undefined;
  const message = result.error === 'revert' ? 'REVERT opcode executed' : result.error;
  return {
    result: failed ? { result: true, message: hex(toBytes(message ?? '')) } : { result: true },
    energy_used: result.energyUsed,
    constant_result: [hex(result.returnValue)],
    ...(result.logs.length > 0 ? { logs: result.logs.map(logJson) } : {}),
    transaction: { ret: [failed ? { ret: 'FAILED' } : {}], ...transaction },
  };
}

async function triggerSmart(chain: TronChain, unsigned: BuildUnsigned, { body, visible }: WalletRequest): Promise<Json> {
  const owner = requireAddress(body.owner_address, 'owner_address');
  const contract = requireAddress(body.contract_address, 'contract_address');
  const target = await chain.account(contract);
  if (!target.isContract) return validationFailure('No contract or not a valid smart contract');
  const call: ContractCall = {
    type: 'TriggerSmartContract',
    owner,
    contract,
    callValue: integer(body.call_value),
    data: callData(body),
    callTokenValue: integer(body.call_token_value),
    tokenId: integer(body.token_id),
  };
  const transaction = unsignedTransactionJson(unsigned(call, integer(body.fee_limit), Number(body.Permission_id ?? 0)), visible);
  return { result: { result: true }, transaction };
}

async function deployContract(unsigned: BuildUnsigned, { body, visible }: WalletRequest): Promise<Json> {
  const owner = requireAddress(body.owner_address, 'owner_address');
  const bytecode = fromHex(String(body.bytecode ?? '') + String(body.parameter ?? '').replace(/^0x/, ''));
  if (bytecode.length === 0) throw new Error('bytecode is empty');
  const call: ContractCall = {
    type: 'CreateSmartContract',
    owner,
    callTokenValue: integer(body.call_token_value),
    tokenId: integer(body.token_id),
    newContract: {
      originAddress: owner,
      abi: abiFromJson(body.abi),
      bytecode,
      callValue: integer(body.call_value),
      consumeUserResourcePercent: integer(body.consume_user_resource_percent ?? 100),
      name: typeof body.name === 'string' ? body.name : '',
      originEnergyLimit: integer(body.origin_energy_limit ?? 10_000_000),
    },
  };
  const transaction = unsignedTransactionJson(unsigned(call, integer(body.fee_limit), Number(body.Permission_id ?? 0)), visible);
  const address = deploymentAddress(fromHex(String(transaction.txID)), owner);
  return { ...transaction, contract_address: formatAddress(address, visible) };
}

async function createTransaction(chain: TronChain, unsigned: BuildUnsigned, { body, visible }: WalletRequest): Promise<Json> {
  const call: ContractCall = {
    type: 'TransferContract',
    owner: requireAddress(body.owner_address, 'owner_address'),
    to: requireAddress(body.to_address, 'to_address'),
    amount: integer(body.amount),
  };
  const raw = unsigned(call, 0n, Number(body.Permission_id ?? 0));
  const problem = await chain.validate(raw);
  if (problem !== undefined) return { Error: `class org.tron.core.exception.ContractValidateException : ${problem}` };
  return unsignedTransactionJson(raw, visible);
}

async function broadcast(chain: TronChain, body: Json): Promise<Json> {
  let transaction: SignedTransaction;
  try {
    transaction = signedTransaction(body);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { code: 'OTHER_ERROR', txid: String(body.txID ?? ''), message: hex(toBytes(message)) };
  }
  const outcome = await chain.broadcast(transaction);
  if (outcome.accepted) return { result: true, txid: transaction.idHex };
  return { code: outcome.code, txid: transaction.idHex, message: hex(toBytes(outcome.message)) };
}

/**
 * A signed transaction from its JSON: raw_data_hex decoded when present, raw_data encoded when
 * present, the two required to agree; the txID is recomputed from the bytes, never trusted.
 */
function signedTransaction(body: Json): SignedTransaction {
  const fromHexBytes = typeof body.raw_data_hex === 'string' && body.raw_data_hex !== '' ? fromHex(body.raw_data_hex) : undefined;
  const fromJsonBytes = body.raw_data === undefined ? undefined : encodeRaw(rawFromJson(body.raw_data));
  const rawBytes = fromHexBytes ?? fromJsonBytes;
  if (rawBytes === undefined) throw new Error('transaction has neither raw_data nor raw_data_hex');
  if (fromHexBytes !== undefined && fromJsonBytes !== undefined && hex(fromHexBytes) !== hex(fromJsonBytes)) {
    throw new Error('raw_data does not encode to raw_data_hex');
  }
  const signatures = Array.isArray(body.signature) ? body.signature.map((signature) => fromHex(String(signature))) : [];
  const id = sha256(rawBytes, 'bytes');
  return { id, idHex: hex(id), raw: decodeRaw(rawBytes), rawBytes, signatures };
}

function transactionInfo(chain: TronChain, id: string, solidified: boolean): Json {
  const found = chain.findTransaction(id.toLowerCase());
  if (found === undefined) return {};
  if (solidified && found.block.header.number > chain.solidNumber) return {};
  const { info, block } = found;
  const receipt: Json = {};
  if (info.receipt.energyUsage !== 0) receipt.energy_usage = info.receipt.energyUsage;
  if (info.receipt.energyFee !== 0n) receipt.energy_fee = Number(info.receipt.energyFee);
  if (info.receipt.energyUsageTotal !== 0) receipt.energy_usage_total = info.receipt.energyUsageTotal;
  if (info.receipt.netUsage !== 0) receipt.net_usage = info.receipt.netUsage;
  if (info.receipt.netFee !== 0n) receipt.net_fee = Number(info.receipt.netFee);
  if (info.receipt.result !== undefined) receipt.result = info.receipt.result;
  const json: Json = { id: info.transaction.idHex };
  if (info.fee !== 0n) json.fee = Number(info.fee);
  json.blockNumber = block.header.number;
  json.blockTimeStamp = block.header.timestamp;
  json.contractResult = [hex(info.contractResult)];
  if (info.contractAddress !== undefined) json.contract_address = formatAddress(info.contractAddress, false);
  json.receipt = receipt;
  if (info.logs.length > 0) json.log = info.logs.map(logJson);
  if (info.failed) json.result = 'FAILED';
  if (info.resMessage !== undefined) json.resMessage = hex(toBytes(info.resMessage));
  return json;
}

function logJson(log: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }): Json {
  const json: Json = { address: hex(log.address), topics: log.topics.map(hex) };
  if (log.data.length > 0) json.data = hex(log.data);
  return json;
}

function requireAddress(value: unknown, field: string): Uint8Array {
  const address = parseAddress(value);
  if (address === undefined) throw new Error(`Invalid ${field}: ${String(value)}`);
  return address;
}
