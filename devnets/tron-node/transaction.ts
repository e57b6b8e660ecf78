import { formatAddress, fromHex, hex, parseAddress } from './address.js';
import { ProtoWriter, readFields, toInt64, type ProtoField } from './protobuf.js';

/**
 * Transaction.raw in three forms: the decoded value the node executes, java-tron's protobuf
 * bytes (raw_data_hex, whose SHA-256 is the txID), and java-tron's JSON (raw_data). Only the
 * three contract types the node serves exist here.
 */

export interface AbiParam {
  indexed?: boolean;
  name?: string;
  type?: string;
}

/** One ABI entry as java-tron prints it: enum names capitalised (`Function`, `Nonpayable`), defaults left out. */
export interface AbiEntry {
  anonymous?: boolean;
  constant?: boolean;
  name?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
  type?: string;
  payable?: boolean;
  stateMutability?: string;
}

export interface NewContract {
  originAddress: Uint8Array;
  contractAddress?: Uint8Array;
  abi: AbiEntry[];
  bytecode: Uint8Array;
  callValue: bigint;
  consumeUserResourcePercent: bigint;
  name: string;
  originEnergyLimit: bigint;
}

export type ContractCall =
  | { type: 'TransferContract'; owner: Uint8Array; to: Uint8Array; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: Uint8Array; contract: Uint8Array; callValue: bigint; data: Uint8Array; callTokenValue: bigint; tokenId: bigint }
  | { type: 'CreateSmartContract'; owner: Uint8Array; newContract: NewContract; callTokenValue: bigint; tokenId: bigint };

export interface RawTransaction {
  refBlockBytes: Uint8Array;
  refBlockHash: Uint8Array;
  expiration: number;
  timestamp: number;
  feeLimit: bigint;
  data: Uint8Array;
  contract: ContractCall;
  permissionId: number;
}

const CONTRACT_TYPES = { TransferContract: 1, CreateSmartContract: 30, TriggerSmartContract: 31 } as const;
const ENTRY_TYPES = ['UnknownEntryType', 'Constructor', 'Function', 'Event', 'Fallback', 'Receive', 'Error'];
const MUTABILITIES = ['UnknownMutabilityType', 'Pure', 'View', 'Nonpayable', 'Payable'];

// ---- bytes ----------------------------------------------------------------------------------

export function encodeRaw(raw: RawTransaction): Uint8Array {
  const contract = new ProtoWriter()
    .varint(1, CONTRACT_TYPES[raw.contract.type])
    .message(2, new ProtoWriter().string(1, `type.googleapis.com/protocol.${raw.contract.type}`).bytes(2, encodeContractValue(raw.contract)).finish())
    .varint(5, raw.permissionId)
    .finish();
  return new ProtoWriter()
    .bytes(1, raw.refBlockBytes)
    .bytes(4, raw.refBlockHash)
    .varint(8, raw.expiration)
    .bytes(10, raw.data)
    .message(11, contract, true)
    .varint(14, raw.timestamp)
    .varint(18, raw.feeLimit)
    .finish();
}

function encodeContractValue(call: ContractCall): Uint8Array {
  switch (call.type) {
    case 'TransferContract':
      return new ProtoWriter().bytes(1, wire(call.owner)).bytes(2, wire(call.to)).varint(3, call.amount).finish();
    case 'TriggerSmartContract':
      return new ProtoWriter()
        .bytes(1, wire(call.owner))
        .bytes(2, wire(call.contract))
        .varint(3, call.callValue)
        .bytes(4, call.data)
        .varint(5, call.callTokenValue)
        .varint(6, call.tokenId)
        .finish();
    case 'CreateSmartContract':
      return new ProtoWriter()
        .bytes(1, wire(call.owner))
        .message(2, encodeNewContract(call.newContract), true)
        .varint(3, call.callTokenValue)
        .varint(4, call.tokenId)
        .finish();
  }
}

function encodeNewContract(contract: NewContract): Uint8Array {
  const abi = new ProtoWriter();
  for (const entry of contract.abi) abi.message(1, encodeAbiEntry(entry), true);
  return new ProtoWriter()
    .bytes(1, wire(contract.originAddress))
    .bytes(2, contract.contractAddress === undefined ? undefined : wire(contract.contractAddress))
    .message(3, abi.finish(), true)
    .bytes(4, contract.bytecode)
    .varint(5, contract.callValue)
    .varint(6, contract.consumeUserResourcePercent)
    .string(7, contract.name)
    .varint(8, contract.originEnergyLimit)
    .finish();
}

function encodeAbiEntry(entry: AbiEntry): Uint8Array {
  const writer = new ProtoWriter().bool(1, entry.anonymous).bool(2, entry.constant).string(3, entry.name);
  for (const input of entry.inputs ?? []) writer.message(4, encodeAbiParam(input), true);
  for (const output of entry.outputs ?? []) writer.message(5, encodeAbiParam(output), true);
  return writer
    .varint(6, enumIndex(ENTRY_TYPES, entry.type))
    .bool(7, entry.payable)
    .varint(8, enumIndex(MUTABILITIES, entry.stateMutability))
    .finish();
}

function encodeAbiParam(param: AbiParam): Uint8Array {
  return new ProtoWriter().bool(1, param.indexed).string(2, param.name).string(3, param.type).finish();
}

/** Decodes raw_data_hex; throws when the bytes are not a Transaction.raw with one supported contract. */
export function decodeRaw(bytes: Uint8Array): RawTransaction {
  const fields = readFields(bytes);
  const contracts = fields.filter((field) => field.field === 11);
  if (contracts.length !== 1) throw new Error('a transaction carries exactly one contract');
  const contractFields = readFields(bytesOf(contracts[0]));
  const typeNumber = Number(varintOf(contractFields, 1));
  const type = (Object.keys(CONTRACT_TYPES) as (keyof typeof CONTRACT_TYPES)[]).find((name) => CONTRACT_TYPES[name] === typeNumber);
  if (type === undefined) throw new Error(`contract type ${typeNumber} is not supported by this node`);
  const parameter = readFields(bytesIn(contractFields, 2));
  const value = readFields(bytesIn(parameter, 2));
  return {
    refBlockBytes: bytesIn(fields, 1),
    refBlockHash: bytesIn(fields, 4),
    expiration: Number(toInt64(varintOf(fields, 8))),
    data: bytesIn(fields, 10),
    timestamp: Number(toInt64(varintOf(fields, 14))),
    feeLimit: toInt64(varintOf(fields, 18)),
    permissionId: Number(varintOf(contractFields, 5)),
    contract: decodeContractValue(type, value),
  };
}

function decodeContractValue(type: keyof typeof CONTRACT_TYPES, value: ProtoField[]): ContractCall {
  switch (type) {
    case 'TransferContract':
      return { type, owner: vmAddress(bytesIn(value, 1)), to: vmAddress(bytesIn(value, 2)), amount: toInt64(varintOf(value, 3)) };
    case 'TriggerSmartContract':
      return {
        type,
        owner: vmAddress(bytesIn(value, 1)),
        contract: vmAddress(bytesIn(value, 2)),
        callValue: toInt64(varintOf(value, 3)),
        data: bytesIn(value, 4),
        callTokenValue: toInt64(varintOf(value, 5)),
        tokenId: toInt64(varintOf(value, 6)),
      };
    case 'CreateSmartContract': {
      const contract = readFields(bytesIn(value, 2));
      const contractAddress = bytesIn(contract, 2);
      return {
        type,
        owner: vmAddress(bytesIn(value, 1)),
        callTokenValue: toInt64(varintOf(value, 3)),
        tokenId: toInt64(varintOf(value, 4)),
        newContract: {
          originAddress: vmAddress(bytesIn(contract, 1)),
          contractAddress: contractAddress.length === 0 ? undefined : vmAddress(contractAddress),
          abi: readFields(bytesIn(contract, 3))
            .filter((field) => field.field === 1)
            .map((field) => decodeAbiEntry(readFields(bytesOf(field)))),
          bytecode: bytesIn(contract, 4),
          callValue: toInt64(varintOf(contract, 5)),
          consumeUserResourcePercent: toInt64(varintOf(contract, 6)),
          name: new TextDecoder().decode(bytesIn(contract, 7)),
          originEnergyLimit: toInt64(varintOf(contract, 8)),
        },
      };
    }
  }
}

function decodeAbiEntry(fields: ProtoField[]): AbiEntry {
  const text = (field: number): string | undefined => {
    const bytes = bytesIn(fields, field);
    return bytes.length === 0 ? undefined : new TextDecoder().decode(bytes);
  };
  const params = (field: number): AbiParam[] =>
    fields
      .filter((candidate) => candidate.field === field)
      .map((candidate) => {
        const param = readFields(bytesOf(candidate));
        const name = bytesIn(param, 2);
        const type = bytesIn(param, 3);
        return canonicalParam({
          indexed: varintOf(param, 1) === 1n,
          name: name.length === 0 ? undefined : new TextDecoder().decode(name),
          type: type.length === 0 ? undefined : new TextDecoder().decode(type),
        });
      });
  return canonicalEntry({
    anonymous: varintOf(fields, 1) === 1n,
    constant: varintOf(fields, 2) === 1n,
    name: text(3),
    inputs: params(4),
    outputs: params(5),
    type: ENTRY_TYPES[Number(varintOf(fields, 6))],
    payable: varintOf(fields, 7) === 1n,
    stateMutability: MUTABILITIES[Number(varintOf(fields, 8))],
  });
}

// ---- JSON -----------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/** raw_data as java-tron prints it: bytes as hex, addresses per `visible`, default values left out. */
export function rawToJson(raw: RawTransaction, visible: boolean): Json {
  const contract: Json = {
    parameter: { value: contractValueToJson(raw.contract, visible), type_url: `type.googleapis.com/protocol.${raw.contract.type}` },
    type: raw.contract.type,
  };
  if (raw.permissionId !== 0) contract.Permission_id = raw.permissionId;
  const json: Json = { contract: [contract], ref_block_bytes: hex(raw.refBlockBytes), ref_block_hash: hex(raw.refBlockHash), expiration: raw.expiration };
  if (raw.data.length > 0) json.data = hex(raw.data);
  if (raw.feeLimit !== 0n) json.fee_limit = Number(raw.feeLimit);
  json.timestamp = raw.timestamp;
  return json;
}

function contractValueToJson(call: ContractCall, visible: boolean): Json {
  const address = (bytes: Uint8Array): string => formatAddress(bytes, visible);
  const json: Json = {};
  switch (call.type) {
    case 'TransferContract':
      if (call.amount !== 0n) json.amount = Number(call.amount);
      json.owner_address = address(call.owner);
      json.to_address = address(call.to);
      return json;
    case 'TriggerSmartContract':
      if (call.data.length > 0) json.data = hex(call.data);
      json.owner_address = address(call.owner);
      json.contract_address = address(call.contract);
      if (call.callValue !== 0n) json.call_value = Number(call.callValue);
      if (call.callTokenValue !== 0n) json.call_token_value = Number(call.callTokenValue);
      if (call.tokenId !== 0n) json.token_id = Number(call.tokenId);
      return json;
    case 'CreateSmartContract': {
      const contract = call.newContract;
      const newContract: Json = {};
      if (contract.bytecode.length > 0) newContract.bytecode = hex(contract.bytecode);
      if (contract.consumeUserResourcePercent !== 0n) newContract.consume_user_resource_percent = Number(contract.consumeUserResourcePercent);
      if (contract.name !== '') newContract.name = contract.name;
      newContract.origin_address = address(contract.originAddress);
      if (contract.contractAddress !== undefined) newContract.contract_address = address(contract.contractAddress);
      newContract.abi = contract.abi.length === 0 ? {} : { entrys: contract.abi };
      if (contract.callValue !== 0n) newContract.call_value = Number(contract.callValue);
      if (contract.originEnergyLimit !== 0n) newContract.origin_energy_limit = Number(contract.originEnergyLimit);
      json.owner_address = address(call.owner);
      json.new_contract = newContract;
      if (call.callTokenValue !== 0n) json.call_token_value = Number(call.callTokenValue);
      if (call.tokenId !== 0n) json.token_id = Number(call.tokenId);
      return json;
    }
  }
}

/** Reads raw_data JSON (java-tron's shape); throws on anything it cannot read. */
export function rawFromJson(json: unknown): RawTransaction {
  const raw = asObject(json, 'raw_data');
  const contracts = raw.contract;
  if (!Array.isArray(contracts) || contracts.length !== 1) throw new Error('raw_data.contract must hold one contract');
  const contract = asObject(contracts[0], 'contract');
  const parameter = asObject(contract.parameter, 'contract.parameter');
  const value = asObject(parameter.value, 'contract.parameter.value');
  return {
    refBlockBytes: fromHex(String(raw.ref_block_bytes ?? '')),
    refBlockHash: fromHex(String(raw.ref_block_hash ?? '')),
    expiration: Number(raw.expiration ?? 0),
    timestamp: Number(raw.timestamp ?? 0),
    feeLimit: BigInt(Number(raw.fee_limit ?? 0)),
    data: fromHex(String(raw.data ?? '')),
    permissionId: Number(contract.Permission_id ?? 0),
    contract: contractFromJson(String(contract.type), value),
  };
}

function contractFromJson(type: string, value: Json): ContractCall {
  const integer = (field: unknown): bigint => BigInt(Number(field ?? 0));
  switch (type) {
    case 'TransferContract':
      return { type, owner: requireAddress(value.owner_address), to: requireAddress(value.to_address), amount: integer(value.amount) };
    case 'TriggerSmartContract':
      return {
        type,
        owner: requireAddress(value.owner_address),
        contract: requireAddress(value.contract_address),
        callValue: integer(value.call_value),
        data: fromHex(String(value.data ?? '')),
        callTokenValue: integer(value.call_token_value),
        tokenId: integer(value.token_id),
      };
    case 'CreateSmartContract': {
      const contract = asObject(value.new_contract, 'new_contract');
      return {
        type,
        owner: requireAddress(value.owner_address),
        callTokenValue: integer(value.call_token_value),
        tokenId: integer(value.token_id),
        newContract: {
          originAddress: requireAddress(contract.origin_address ?? value.owner_address),
          contractAddress: contract.contract_address === undefined ? undefined : requireAddress(contract.contract_address),
          abi: abiFromJson(contract.abi),
          bytecode: fromHex(String(contract.bytecode ?? '')),
          callValue: integer(contract.call_value),
          consumeUserResourcePercent: integer(contract.consume_user_resource_percent),
          name: typeof contract.name === 'string' ? contract.name : '',
          originEnergyLimit: integer(contract.origin_energy_limit),
        },
      };
    }
    default:
      throw new Error(`contract type ${type} is not supported by this node`);
  }
}

/** An ABI as clients send it: a JSON string or value, an array of solc entries or `{entrys: […]}`. */
export function abiFromJson(value: unknown): AbiEntry[] {
  const parsed: unknown = typeof value === 'string' ? (value.trim() === '' ? [] : JSON.parse(value)) : (value ?? []);
  const entries = Array.isArray(parsed) ? parsed : ((parsed as { entrys?: unknown }).entrys ?? []);
  if (!Array.isArray(entries)) throw new Error('abi must be a list of entries');
  return entries.map((entry: Json) =>
    canonicalEntry({
      anonymous: entry.anonymous === true,
      constant: entry.constant === true,
      name: typeof entry.name === 'string' && entry.name !== '' ? entry.name : undefined,
      inputs: Array.isArray(entry.inputs) ? entry.inputs.map(paramFromJson) : [],
      outputs: Array.isArray(entry.outputs) ? entry.outputs.map(paramFromJson) : [],
      type: enumName(ENTRY_TYPES, entry.type),
      payable: entry.payable === true,
      stateMutability: enumName(MUTABILITIES, entry.stateMutability),
    }),
  );
}

function paramFromJson(param: Json): AbiParam {
  return canonicalParam({
    indexed: param.indexed === true,
    name: typeof param.name === 'string' && param.name !== '' ? param.name : undefined,
    type: typeof param.type === 'string' && param.type !== '' ? param.type : undefined,
  });
}

function canonicalEntry(entry: AbiEntry): AbiEntry {
  const result: AbiEntry = {};
  if (entry.anonymous === true) result.anonymous = true;
  if (entry.constant === true) result.constant = true;
  if (entry.name !== undefined) result.name = entry.name;
  if (entry.inputs !== undefined && entry.inputs.length > 0) result.inputs = entry.inputs;
  if (entry.outputs !== undefined && entry.outputs.length > 0) result.outputs = entry.outputs;
  if (entry.type !== undefined && entry.type !== ENTRY_TYPES[0]) result.type = entry.type;
  if (entry.payable === true) result.payable = true;
  if (entry.stateMutability !== undefined && entry.stateMutability !== MUTABILITIES[0]) result.stateMutability = entry.stateMutability;
  return result;
}

function canonicalParam(param: AbiParam): AbiParam {
  const result: AbiParam = {};
  if (param.indexed === true) result.indexed = true;
  if (param.name !== undefined) result.name = param.name;
  if (param.type !== undefined) result.type = param.type;
  return result;
}

function enumName(names: string[], value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return names.find((name) => name.toLowerCase() === value.toLowerCase());
}

function enumIndex(names: string[], value: string | undefined): number {
  const index = value === undefined ? 0 : names.indexOf(value);
  return index < 0 ? 0 : index;
}

// ---- helpers --------------------------------------------------------------------------------

function wire(address: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(21);
  bytes[0] = 0x41;
  bytes.set(address, 1);
  return bytes;
}

function vmAddress(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 21 && bytes[0] === 0x41) return bytes.subarray(1);
  if (bytes.length === 20) return bytes;
  throw new Error('malformed address');
}

function requireAddress(value: unknown): Uint8Array {
  const address = parseAddress(value);
  if (address === undefined) throw new Error(`invalid address ${String(value)}`);
  return address;
}

function asObject(value: unknown, name: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${name} must be an object`);
  return value as Json;
}

function bytesIn(fields: ProtoField[], field: number): Uint8Array {
  const found = fields.findLast((candidate) => candidate.field === field);
  return found?.bytes ?? new Uint8Array();
}

function bytesOf(field: ProtoField | undefined): Uint8Array {
  if (field?.bytes === undefined) throw new Error('expected a length-delimited field');
  return field.bytes;
}

function varintOf(fields: ProtoField[], field: number): bigint {
  const found = fields.findLast((candidate) => candidate.field === field);
  return found?.varint ?? 0n;
}
