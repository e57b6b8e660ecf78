import { secp256k1 } from '@noble/curves/secp256k1';
import { concat, numberToBytes, sha256 } from 'viem';
import { formatAddress, hex } from './address.js';
import { ProtoWriter } from './protobuf.js';
import { encodeRaw, rawToJson, type RawTransaction } from './transaction.js';

/** A transaction accepted by broadcast: its decoded raw data, the exact bytes signed, the signatures. */
export interface SignedTransaction {
  id: Uint8Array;
  idHex: string;
  raw: RawTransaction;
  rawBytes: Uint8Array;
  signatures: Uint8Array[];
}

export interface BlockHeader {
  number: number;
  timestamp: number;
  parentHash: Uint8Array;
  txTrieRoot: Uint8Array;
  witnessAddress: Uint8Array;
  version: number;
}

/** The header's protobuf (BlockHeader.raw) — what the blockID hashes and the witness signs. */
export function encodeHeader(header: BlockHeader): Uint8Array {
  return new ProtoWriter()
    .varint(1, header.timestamp)
    .bytes(2, header.txTrieRoot)
    .bytes(3, header.parentHash)
    .varint(7, header.number)
    .bytes(9, concat([Uint8Array.of(0x41), header.witnessAddress]))
    .varint(10, header.version)
    .finish();
}

/** blockID: the 8-byte big-endian number, then the last 24 bytes of sha256(header raw). */
export function blockId(header: BlockHeader): Uint8Array {
  return concat([numberToBytes(header.number, { size: 8 }), sha256(encodeHeader(header), 'bytes').slice(8)]);
}

export function signHeader(header: BlockHeader, witnessKey: Uint8Array): Uint8Array {
  const signature = secp256k1.sign(sha256(encodeHeader(header), 'bytes'), witnessKey);
  return concat([signature.toCompactRawBytes(), Uint8Array.of(signature.recovery)]);
}

/** The protobuf of the whole Transaction without its results: what bandwidth counts. */
export function encodeSignedTransaction(transaction: SignedTransaction): Uint8Array {
  const writer = new ProtoWriter().message(1, transaction.rawBytes, true);
  for (const signature of transaction.signatures) writer.bytes(2, signature);
  return writer.finish();
}

/**
 * A binary Merkle root of sha256(transaction) leaves, sha256(left ‖ right) per level, an odd leaf
 * carried up; zero bytes for an empty block. The shape of java-tron's txTrieRoot, not its bytes.
 */
export function transactionRoot(transactions: SignedTransaction[]): Uint8Array {
  let level = transactions.map((transaction) => sha256(encodeSignedTransaction(transaction), 'bytes'));
  if (level.length === 0) return new Uint8Array(32);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let index = 0; index < level.length; index += 2) {
      const left = level[index] as Uint8Array;
      const right = level[index + 1];
      next.push(right === undefined ? left : sha256(concat([left, right]), 'bytes'));
    }
    level = next;
  }
  return level[0] as Uint8Array;
}

/** A transaction as java-tron prints it inside blocks and by gettransactionbyid. */
export function transactionJson(transaction: SignedTransaction, visible: boolean, contractRet?: string): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  if (contractRet !== undefined) json.ret = [{ contractRet }];
  json.signature = transaction.signatures.map(hex);
  json.txID = transaction.idHex;
  json.raw_data = rawToJson(transaction.raw, visible);
  json.raw_data_hex = hex(transaction.rawBytes);
  if (visible) json.visible = true;
  return json;
}

/** An unsigned transaction as the builder endpoints answer it. */
export function unsignedTransactionJson(raw: RawTransaction, visible: boolean): Record<string, unknown> {
  const rawBytes = encodeRaw(raw);
  return { visible, txID: hex(sha256(rawBytes, 'bytes')), raw_data: rawToJson(raw, visible), raw_data_hex: hex(rawBytes) };
}

export function headerJson(header: BlockHeader, witnessSignature: Uint8Array, visible: boolean): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  // java-tron leaves out a zero number (genesis); this node prints it, so a client can read any head.
  raw.number = header.number;
  raw.txTrieRoot = hex(header.txTrieRoot);
  raw.witness_address = formatAddress(header.witnessAddress, visible);
  raw.parentHash = hex(header.parentHash);
  raw.version = header.version;
  raw.timestamp = header.timestamp;
  return { raw_data: raw, witness_signature: hex(witnessSignature) };
}
