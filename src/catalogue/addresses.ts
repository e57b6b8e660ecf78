import { createHash } from 'node:crypto';
import { getAddress, isAddress } from 'viem';

/**
 * Address formats of the network families, as the catalogue checks them. Pure;
 * the chain adapters may reuse these for recipient checks.
 */

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_PATTERN = /^[1-9A-HJ-NP-Za-km-z]+$/;
const TRON_ADDRESS_PREFIX = 0x41;

/** Base58 (Bitcoin alphabet) → bytes; undefined on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  if (!BASE58_PATTERN.test(text)) return undefined;
  let value = 0n;
  for (const character of text) value = value * 58n + BigInt(BASE58_ALPHABET.indexOf(character));
  const body: number[] = [];
  while (value > 0n) {
    body.unshift(Number(value % 256n));
    value /= 256n;
  }
  // Each leading '1' stands for one leading zero byte.
  const leadingZeros = text.length - text.replace(/^1+/, '').length;
  return Uint8Array.from([...new Array<number>(leadingZeros).fill(0), ...body]);
}

/** An EVM address in its exact EIP-55 checksummed form (not lower-case, not mis-cased). */
export function isChecksummedEvmAddress(address: string): boolean {
  return isAddress(address, { strict: true }) && getAddress(address) === address;
}

/** The EIP-55 form of a valid EVM address, for error messages; undefined if invalid. */
export function checksummedEvmAddress(address: string): string | undefined {
  return isAddress(address, { strict: false }) ? getAddress(address) : undefined;
}

/**
 * A Tron base58check address: 34 characters starting with T, decoding to the
 * 0x41 prefix, 20 bytes and a 4-byte double-SHA-256 checksum.
 */
export function isTronAddress(address: string): boolean {
  if (address.length !== 34 || !address.startsWith('T')) return false;
  const bytes = decodeBase58(address);
  if (bytes === undefined || bytes.length !== 25 || bytes[0] !== TRON_ADDRESS_PREFIX) return false;
  const payload = bytes.subarray(0, 21);
  const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  return checksum.subarray(0, 4).equals(bytes.subarray(21));
}

/** A Solana public key or mint: base58, 32–44 characters, decoding to exactly 32 bytes. */
export function isSolanaAddress(address: string): boolean {
  if (address.length < 32 || address.length > 44) return false;
  return decodeBase58(address)?.length === 32;
}
