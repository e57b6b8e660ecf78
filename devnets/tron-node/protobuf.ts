/**
 * The few protobuf wire rules java-tron's messages need: varints (int32, int64, enums, bools)
 * and length-delimited fields (bytes, strings, messages). Proto3 semantics: a field holding its
 * default value (0, false, empty) is not written, and fields are written in field-number order,
 * which is what java-tron (and tronweb's jspb) emit, so equal messages give equal bytes.
 */

const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;

export class ProtoWriter {
  private readonly chunks: number[] = [];

  /** An int64/int32/enum field; negative values take ten bytes, as protobuf's two's complement. */
  varint(field: number, value: bigint | number): this {
    const big = BigInt(value);
    if (big === 0n) return this;
    this.tag(field, WIRE_VARINT);
    this.rawVarint(big < 0n ? big + (1n << 64n) : big);
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    return value === true ? this.varint(field, 1) : this;
  }

  bytes(field: number, value: Uint8Array | undefined): this {
    if (value === undefined || value.length === 0) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.rawVarint(BigInt(value.length));
    for (const byte of value) this.chunks.push(byte);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value === undefined ? this : this.bytes(field, new TextEncoder().encode(value));
  }

  /** An embedded message; written even when empty only if `always` (a present-but-empty message). */
  message(field: number, value: Uint8Array | undefined, always = false): this {
    if (value === undefined) return this;
    if (value.length === 0 && !always) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.rawVarint(BigInt(value.length));
    for (const byte of value) this.chunks.push(byte);
    return this;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }

  private tag(field: number, wireType: number): void {
    this.rawVarint(BigInt((field << 3) | wireType));
  }

  private rawVarint(value: bigint): void {
    let rest = value;
    while (rest > 0x7fn) {
      this.chunks.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.chunks.push(Number(rest));
  }
}

/** One decoded field: a varint as bigint, a length-delimited field as its bytes. */
export type ProtoField = { field: number; varint: bigint; bytes?: undefined } | { field: number; bytes: Uint8Array; varint?: undefined };

/** Splits a message into its fields; throws on malformed input or wire types java-tron's messages never use. */
export function readFields(buffer: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let offset = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (offset >= buffer.length) throw new Error('truncated varint');
      const byte = buffer[offset++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('varint too long');
    }
  };
  while (offset < buffer.length) {
    const tag = Number(readVarint());
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 0) throw new Error('field number 0');
    if (wireType === WIRE_VARINT) {
      fields.push({ field, varint: readVarint() });
    } else if (wireType === WIRE_LENGTH_DELIMITED) {
      const length = Number(readVarint());
      if (offset + length > buffer.length) throw new Error('truncated field');
      fields.push({ field, bytes: buffer.subarray(offset, offset + length) });
      offset += length;
    } else {
      throw new Error(`unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

/** Signed int64 from a varint's 64-bit two's complement. */
export function toInt64(value: bigint): bigint {
  return value >= 1n << 63n ? value - (1n << 64n) : value;
}
