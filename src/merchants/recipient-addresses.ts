import { createHash } from 'node:crypto';
// @noble/curves arrives with viem; ARCHITECTURE names it for exactly this check.
import { ed25519 } from '@noble/curves/ed25519';
import { decodeBase58 } from '../catalogue/index.js';
import { fieldError } from '../platform/errors.js';

const SOLANA_KEY_BYTES = 32;
const TRON_ADDRESS_BYTES = 25;
const TRON_PREFIX = 0x41;

/**
 * A Solana payout recipient: a base58 32-byte public key ON the ed25519
 * curve. Off-curve keys are program-derived addresses, which no private key
 * controls (SPEC: refused). The all-zero key (the System Program) is on the
 * curve but would burn funds; refused too.
 */
export function parseSolanaRecipient(address: string, field = 'address'): string {
  const bytes = address.length >= 32 && address.length <= 44 ? decodeBase58(address) : undefined;
  if (bytes?.length !== SOLANA_KEY_BYTES) throw fieldError('invalid_solana_address', field, 'must be a Solana public key: base58, 32 to 44 characters, 32 bytes');
  if (bytes.every((byte) => byte === 0)) throw fieldError('invalid_solana_address', field, 'must not be the System Program address, which burns funds');
  try {
    ed25519.ExtendedPoint.fromHex(bytes);
  } catch {
    throw fieldError('invalid_solana_address', field, 'is a program-derived address (off the ed25519 curve), which no private key controls: use a wallet address');
  }
  return address;
}

/**
 * A Tron payout recipient: base58check of 21 bytes starting 0x41 plus a 4-byte
 * checksum (the first bytes of double SHA-256). A malformed string is
 * `invalid_tron_address`; a well-formed one whose checksum fails (a typo) is
 * `invalid_tron_checksum`. The all-zero account burns funds and is refused.
 */
export function parseTronRecipient(address: string, field = 'address'): string {
  const bytes = address.length === 34 ? decodeBase58(address) : undefined;
  if (bytes?.length !== TRON_ADDRESS_BYTES || bytes[0] !== TRON_PREFIX) {
    throw fieldError('invalid_tron_address', field, 'must be a Tron address: base58check, 34 characters starting with T');
  }
  const payload = bytes.subarray(0, 21);
  const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
  if (!checksum.equals(bytes.subarray(21))) throw fieldError('invalid_tron_checksum', field, 'has a wrong checksum (a typo?): copy the address again');
  if (payload.subarray(1).every((byte) => byte === 0)) throw fieldError('invalid_tron_address', field, 'must not be the zero account, which burns funds');
  return address;
}
