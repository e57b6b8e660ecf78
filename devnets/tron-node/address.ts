import { createBase58check } from '@scure/base';
import { bytesToHex, hexToBytes, sha256 } from 'viem';

/** Tron's address prefix byte: a 21-byte wire address is 0x41 ‖ the 20-byte VM address. */
export const ADDRESS_PREFIX = 0x41;

const base58check = createBase58check((data: Uint8Array) => sha256(data, 'bytes'));

/** The 20-byte VM address as `41…` hex (visible=false) or base58check `T…` (visible=true). */
export function formatAddress(address: Uint8Array, visible: boolean): string {
  const wire = withPrefix(address);
  return visible ? base58check.encode(wire) : bytesToHex(wire).slice(2);
}

export function withPrefix(address: Uint8Array): Uint8Array {
  if (address.length === 21) return address;
  const wire = new Uint8Array(21);
  wire[0] = ADDRESS_PREFIX;
  wire.set(address, 1);
  return wire;
}

/**
 * Reads an address in any form a client sends (`T…`, `41…` hex, `0x…` 20-byte hex) and returns
 * the 20-byte VM address, or undefined when it is not one. java-tron insists on the form that
 * `visible` announces; this node accepts either (a documented leniency).
 */
export function parseAddress(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('T')) {
    try {
      const wire = base58check.decode(value);
      return wire.length === 21 && wire[0] === ADDRESS_PREFIX ? wire.subarray(1) : undefined;
    } catch {
      return undefined;
    }
  }
  const hex = value.startsWith('0x') ? value.slice(2) : value;
  if (!/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  if (hex.length === 42 && hex.slice(0, 2) === '41') return hexToBytes(`0x${hex.slice(2)}`);
  if (hex.length === 40) return hexToBytes(`0x${hex}`);
  return undefined;
}

/** Lower-case hex without 0x, java-tron's form for bytes fields. */
export function hex(bytes: Uint8Array): string {
  return bytesToHex(bytes).slice(2);
}

/** Hex (with or without 0x) to bytes; throws on odd length or non-hex digits. */
export function fromHex(value: string): Uint8Array {
  const digits = value.startsWith('0x') ? value.slice(2) : value;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) throw new Error(`not hex: ${value.slice(0, 20)}`);
  return hexToBytes(`0x${digits}`);
}

export function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}
