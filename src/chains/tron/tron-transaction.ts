import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';

/**
 * Tron transactions as Ivory signs them (issue 23 item 3). The node builds a
 * `TriggerSmartContract` transaction; Ivory decodes the protobuf bytes it
 * would sign (`raw_data_hex`, java-tron's `Transaction.raw`), checks them
 * against what it asked for, and signs the SHA-256 of those bytes with the
 * relayer's key, locally. The JSON it broadcasts is rebuilt from the decoded
 * bytes, never taken from the node: a lying node gets a signature for what
 * Ivory asked and nothing else.
 */

/** What Ivory asks a node to build: a call of `contract` with `data`, paid by `owner`. */
export interface TriggerRequest {
  /** `41…` hex. */
  readonly owner: string;
  readonly contract: string;
  /** Call data, hex without 0x. */
  readonly data: string;
  /** Sun. */
  readonly feeLimit: bigint;
}

/** The fields of a decoded `Transaction.raw` holding one `TriggerSmartContract`. */
export interface DecodedTrigger {
  readonly refBlockBytes: string;
  readonly refBlockHash: string;
  readonly expiration: bigint;
  readonly timestamp: bigint;
  readonly feeLimit: bigint;
  readonly owner: string;
  readonly contract: string;
  readonly data: string;
}

export class TronTransactionRefused extends Error {
  constructor(message: string) {
    super(`the node's transaction is refused: ${message}`);
    this.name = 'TronTransactionRefused';
  }
}

const TRIGGER_SMART_CONTRACT = 31;
const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
/** Tron refuses expirations more than a day ahead; a node offering one is not trusted either. */
const MAX_EXPIRATION_AHEAD_MS = 24n * 60n * 60n * 1000n;

/** The transaction id: SHA-256 of the raw data's bytes. */
export function transactionId(rawDataHex: string): string {
  return createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');
}

/**
 * Decodes the node's `raw_data_hex` and checks every field against the
 * request: one contract, of type TriggerSmartContract, from our relayer, to
 * our contract, with our call data, no TRX or TRC-10 value, no other
 * permission, our fee limit, and an expiration after `now` and within a day.
 */
export function checkTrigger(rawDataHex: string, request: TriggerRequest, now: bigint): DecodedTrigger {
  const decoded = decodeTrigger(rawDataHex);
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new TronTransactionRefused(what);
  };
  expect(decoded.owner === request.owner.toLowerCase(), `owner ${decoded.owner}, asked ${request.owner}`);
  expect(decoded.contract === request.contract.toLowerCase(), `contract ${decoded.contract}, asked ${request.contract}`);
  expect(decoded.data === strip0x(request.data).toLowerCase(), 'call data differs from the request');
  expect(decoded.feeLimit === request.feeLimit, `fee_limit ${decoded.feeLimit}, asked ${request.feeLimit}`);
  expect(decoded.expiration > now && decoded.expiration <= now + MAX_EXPIRATION_AHEAD_MS, `expiration ${decoded.expiration} is not within a day after ${now}`);
  return decoded;
}

/** The protobuf of `Transaction.raw` with one TriggerSmartContract; anything else is refused. */
export function decodeTrigger(rawDataHex: string): DecodedTrigger {
  if (!/^([0-9a-fA-F]{2})*$/.test(rawDataHex)) throw new TronTransactionRefused('raw_data_hex is not hex');
  const raw = readMessage(Buffer.from(rawDataHex, 'hex'));
  const allowed = new Set([1, 3, 4, 8, 11, 14, 18]);
  for (const field of raw.keys()) if (!allowed.has(field)) throw new TronTransactionRefused(`unexpected field ${field} in raw data`);
  const contracts = raw.get(11) ?? [];
  if (contracts.length !== 1) throw new TronTransactionRefused(`${contracts.length} contracts in one transaction`);
  const contract = readMessage(bytesOf(contracts[0]));
  for (const field of contract.keys()) if (field !== 1 && field !== 2) throw new TronTransactionRefused(`unexpected field ${field} in the contract (a permission id?)`);
  if (single(contract, 1, 'contract type') !== BigInt(TRIGGER_SMART_CONTRACT)) throw new TronTransactionRefused('the contract is not a TriggerSmartContract');
  const any = readMessage(bytesOf(single(contract, 2, 'parameter')));
  if (bytesOf(single(any, 1, 'type_url')).toString('utf8') !== TRIGGER_TYPE_URL) throw new TronTransactionRefused('the parameter is not a TriggerSmartContract');
  const trigger = readMessage(bytesOf(single(any, 2, 'parameter value')));
  for (const field of trigger.keys()) {
    // 3 call_value, 5 call_token_value, 6 token_id: zero values are absent in protobuf, so present means non-zero.
    if (field !== 1 && field !== 2 && field !== 4) throw new TronTransactionRefused(`the call carries field ${field} (TRX or token value?)`);
  }
  return {
    refBlockBytes: bytesOf(single(raw, 1, 'ref_block_bytes')).toString('hex'),
    refBlockHash: bytesOf(single(raw, 4, 'ref_block_hash')).toString('hex'),
    expiration: numberOf(single(raw, 8, 'expiration')),
    timestamp: raw.has(14) ? numberOf(single(raw, 14, 'timestamp')) : 0n,
    feeLimit: raw.has(18) ? numberOf(single(raw, 18, 'fee_limit')) : 0n,
    owner: bytesOf(single(trigger, 1, 'owner_address')).toString('hex'),
    contract: bytesOf(single(trigger, 2, 'contract_address')).toString('hex'),
    data: trigger.has(4) ? bytesOf(single(trigger, 4, 'data')).toString('hex') : '',
  };
}

/** What a deployment asks: `bytecode` (creation code with its constructor arguments) created by `owner`. */
export interface CreateRequest {
  readonly owner: string;
  /** Hex without 0x. */
  readonly bytecode: string;
  readonly feeLimit: bigint;
}

const CREATE_SMART_CONTRACT = 30;
const CREATE_TYPE_URL = 'type.googleapis.com/protocol.CreateSmartContract';

/**
 * The node's deployment transaction checked as `checkTrigger` checks a call:
 * one CreateSmartContract, by our owner, of our bytecode, with no value, our
 * fee limit and a sane expiration. Answers the expiration.
 */
export function checkCreate(rawDataHex: string, request: CreateRequest, now: bigint): { readonly expiration: bigint } {
  if (!/^([0-9a-fA-F]{2})*$/.test(rawDataHex)) throw new TronTransactionRefused('raw_data_hex is not hex');
  const raw = readMessage(Buffer.from(rawDataHex, 'hex'));
  const contracts = raw.get(11) ?? [];
  if (contracts.length !== 1) throw new TronTransactionRefused(`${contracts.length} contracts in one transaction`);
  const contract = readMessage(bytesOf(contracts[0]));
  if (contract.has(5)) throw new TronTransactionRefused('another permission');
  if (single(contract, 1, 'contract type') !== BigInt(CREATE_SMART_CONTRACT)) throw new TronTransactionRefused('the contract is not a CreateSmartContract');
  const any = readMessage(bytesOf(single(contract, 2, 'parameter')));
  if (bytesOf(single(any, 1, 'type_url')).toString('utf8') !== CREATE_TYPE_URL) throw new TronTransactionRefused('the parameter is not a CreateSmartContract');
  const create = readMessage(bytesOf(single(any, 2, 'parameter value')));
  if (create.has(3) || create.has(4)) throw new TronTransactionRefused('a TRC-10 value sent along');
  const owner = bytesOf(single(create, 1, 'owner_address')).toString('hex');
  const created = readMessage(bytesOf(single(create, 2, 'new_contract')));
  if (created.has(5)) throw new TronTransactionRefused('TRX sent along');
  const expiration = numberOf(single(raw, 8, 'expiration'));
  const checks: [boolean, string][] = [
    [owner === request.owner.toLowerCase(), `owner ${owner}`],
    [bytesOf(single(created, 1, 'origin_address')).toString('hex') === request.owner.toLowerCase(), 'another origin address'],
    [bytesOf(single(created, 4, 'bytecode')).toString('hex') === strip0x(request.bytecode).toLowerCase(), 'the bytecode differs from the request'],
    [(raw.has(18) ? numberOf(single(raw, 18, 'fee_limit')) : 0n) === request.feeLimit, 'another fee limit'],
    [expiration > now && expiration <= now + MAX_EXPIRATION_AHEAD_MS, `expiration ${expiration}`],
    [!raw.has(10), 'a memo'],
  ];
  for (const [ok, what] of checks) if (!ok) throw new TronTransactionRefused(what);
  return { expiration };
}

/** A 65-byte secp256k1 signature of the transaction id (r ‖ s ‖ v, v = 27 + recovery), hex. */
export function signTransactionId(txId: string, privateKeyHex: string): string {
  const signature = secp256k1.sign(Buffer.from(txId, 'hex'), Buffer.from(strip0x(privateKeyHex), 'hex'), { lowS: true });
  return `${signature.toCompactHex()}${(27 + signature.recovery).toString(16)}`;
}

/** The `/wallet/broadcasttransaction` body for a signed trigger, rebuilt from the decoded bytes (`visible: false`). */
export function broadcastBody(rawDataHex: string, signature: string): object {
  const decoded = decodeTrigger(rawDataHex);
  return {
    visible: false,
    txID: transactionId(rawDataHex),
    raw_data_hex: rawDataHex,
    signature: [signature],
    raw_data: {
      contract: [
        {
          parameter: {
            value: { data: decoded.data, owner_address: decoded.owner, contract_address: decoded.contract },
            type_url: TRIGGER_TYPE_URL,
          },
          type: 'TriggerSmartContract',
        },
      ],
      ref_block_bytes: decoded.refBlockBytes,
      ref_block_hash: decoded.refBlockHash,
      expiration: Number(decoded.expiration),
      fee_limit: Number(decoded.feeLimit),
      timestamp: Number(decoded.timestamp),
    },
  };
}

type FieldValue = bigint | Buffer;

/** Protobuf wire format: varints (0), 64-bit (1), length-delimited (2), 32-bit (5); repeated fields collected. */
function readMessage(bytes: Buffer): Map<number, FieldValue[]> {
  const fields = new Map<number, FieldValue[]>();
  let offset = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (offset >= bytes.length || shift > 63n) throw new TronTransactionRefused('a truncated varint');
      const byte = bytes[offset++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    let value: FieldValue;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = Number(varint());
      if (offset + length > bytes.length) throw new TronTransactionRefused('a truncated field');
      value = bytes.subarray(offset, offset + length);
      offset += length;
    } else if (wire === 1 || wire === 5) {
      const length = wire === 1 ? 8 : 4;
      if (offset + length > bytes.length) throw new TronTransactionRefused('a truncated field');
      value = bytes.subarray(offset, offset + length);
      offset += length;
    } else throw new TronTransactionRefused(`wire type ${wire}`);
    if (field === 0) throw new TronTransactionRefused('field number 0');
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

function single(message: Map<number, FieldValue[]>, field: number, name: string): FieldValue {
  const values = message.get(field) ?? [];
  if (values.length !== 1) throw new TronTransactionRefused(`${values.length} values of ${name}`);
  return values[0] as FieldValue;
}

function bytesOf(value: FieldValue | undefined): Buffer {
  if (!Buffer.isBuffer(value)) throw new TronTransactionRefused('a number where bytes belong');
  return value;
}

function numberOf(value: FieldValue): bigint {
  if (typeof value !== 'bigint') throw new TronTransactionRefused('bytes where a number belongs');
  return value;
}

function strip0x(hex: string): string {
  return hex.startsWith('0x') ? hex.slice(2) : hex;
}
