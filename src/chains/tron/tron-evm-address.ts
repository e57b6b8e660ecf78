import { getAddress, type Address } from 'viem';
import { tronAddressCodec } from './tron-address-codec.js';
import { tronAccountBytes } from './tron-create2.js';

/**
 * A Tron account as the TVM sees it: the 20 bytes after the `0x41` prefix,
 * written as an EVM address. The contracts, their ABI encoding and the
 * `/jsonrpc` logs speak this form; answers and the database speak `T…`.
 */
export function tvmAddress(tronAddress: string): Address {
  return getAddress(`0x${Buffer.from(tronAccountBytes(tronAddress)).toString('hex')}`);
}

/** The `T…` spelling of a TVM address (`0x` + 20 bytes, or `41` + 20 bytes as the HTTP API writes it). */
export function tronAddress(tvm: string): string {
  const hex = tvm.startsWith('0x') ? tvm.slice(2) : tvm.length === 42 && tvm.startsWith('41') ? tvm.slice(2) : tvm;
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) throw new Error(`not a TVM address: ${tvm}`);
  return tronAddressCodec.spellAddress(Buffer.from(hex, 'hex'));
}

/** `41…`: how the HTTP API writes an address when `visible` is false. */
export function tronWireAddress(tronAddressOrTvm: string): string {
  const tvm = tronAddressOrTvm.startsWith('T') ? tvmAddress(tronAddressOrTvm) : getAddress(tronAddressOrTvm);
  return `41${tvm.slice(2).toLowerCase()}`;
}
