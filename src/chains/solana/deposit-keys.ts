// Each Solana issuance gets its own ed25519 key (issue 24 item 1), derived from the operator's
// deposit seed by SLIP-0010: for ed25519 every step is hardened, so a derived public key reveals
// nothing of its siblings, and only the seed's holder can derive any private key. The path is the
// one Solana wallets use, m/44'/501'/<index>'/0', so an operator can recover a deposit key with
// ordinary wallet tools from the seed. Pure code: decrypting the seed is the caller's business.

import { createHmac } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '../base58.js';

/** A SLIP-0010 extended private key: the 32-byte ed25519 private key (seed) and its chain code. */
export interface ExtendedKey {
  readonly privateKey: Uint8Array;
  readonly chainCode: Uint8Array;
}

export interface DepositKey {
  readonly index: number;
  /** The 32-byte ed25519 private key (RFC 8032 seed). */
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
  /** The wallet address: base58 of the public key. */
  readonly address: string;
}

const HARDENED = 0x8000_0000;
const MAX_INDEX = HARDENED - 1;
/** BIP-32's seed sizes, 128 to 512 bits; Ivory's deposit seeds are 32 or 64 bytes. */
const MIN_SEED_BYTES = 16;
const MAX_SEED_BYTES = 64;

function split(digest: Buffer): ExtendedKey {
  return { privateKey: Uint8Array.from(digest.subarray(0, 32)), chainCode: Uint8Array.from(digest.subarray(32, 64)) };
}

/** The master key of `seed` (HMAC-SHA512 keyed "ed25519 seed"); throws for a seed outside 16–64 bytes (a bug). */
export function masterKey(seed: Uint8Array): ExtendedKey {
  if (seed.length < MIN_SEED_BYTES || seed.length > MAX_SEED_BYTES) {
    throw new RangeError(`a SLIP-0010 seed is ${MIN_SEED_BYTES} to ${MAX_SEED_BYTES} bytes, not ${seed.length}`);
  }
  return split(createHmac('sha512', 'ed25519 seed').update(seed).digest());
}

/** The hardened child `index'` of `parent` (ed25519 has no other kind); `index` is below 2^31. */
export function hardenedChild(parent: ExtendedKey, index: number): ExtendedKey {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`a hardened index is 0 to ${MAX_INDEX}, not ${index}`);
  const data = new Uint8Array(37);
  data.set(parent.privateKey, 1);
  new DataView(data.buffer).setUint32(33, index + HARDENED, false);
  return split(createHmac('sha512', parent.chainCode).update(data).digest());
}

/** The key at `path` from `seed`, every index hardened: [44, 501, 0, 0] is m/44'/501'/0'/0'. */
export function derivePath(seed: Uint8Array, path: readonly number[]): ExtendedKey {
  return path.reduce(hardenedChild, masterKey(seed));
}

/** The deposit key of issuance slot `index`: m/44'/501'/<index>'/0'. */
export function deriveDepositKey(seed: Uint8Array, index: number): DepositKey {
  const { privateKey } = derivePath(seed, [44, 501, index, 0]);
  const publicKey = ed25519.getPublicKey(privateKey);
  return { index, privateKey, publicKey, address: base58.encode(publicKey) };
}
