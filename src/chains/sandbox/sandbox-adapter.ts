import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import type { ChainFamily } from '../chain-network.js';
import type { AddressRequest, ChainAdapter } from '../chain-adapter.js';

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const TRON_ADDRESS_PREFIX = 0x41;

/**
 * Addresses for sandbox issuances: deterministic (a hash of the issuance id),
 * valid-looking for the family — EIP-55 on EVM, base58check with the 0x41
 * prefix on Tron, 32 base58 bytes on Solana — and backed by no key at all, so
 * nothing sent there can ever be moved. Sandbox money does not exist.
 */
export const sandboxAdapter: ChainAdapter = {
  name: 'sandbox',
  async allocateAddress(request: AddressRequest): Promise<string> {
    return sandboxAddress(request.family, request.issuanceId);
  },
};

export function sandboxAddress(family: ChainFamily, issuanceId: string): string {
  const digest = createHash('sha256').update(`ivory-sandbox-address:${issuanceId}`).digest();
  switch (family) {
    case 'evm':
      return getAddress(`0x${digest.subarray(0, 20).toString('hex')}`);
    case 'tron': {
      const payload = Buffer.concat([Buffer.from([TRON_ADDRESS_PREFIX]), digest.subarray(0, 20)]);
      const checksum = sha256(sha256(payload)).subarray(0, 4);
      return encodeBase58(Buffer.concat([payload, checksum]));
    }
    case 'solana':
      return encodeBase58(digest);
  }
}

/** A 32-byte transaction hash for a simulated transfer, in the family's usual spelling. */
export function sandboxTxHash(family: ChainFamily, seed: Buffer): string {
  const digest = sha256(seed);
  if (family === 'evm') return `0x${digest.toString('hex')}`;
  if (family === 'tron') return digest.toString('hex');
  return encodeBase58(Buffer.concat([digest, sha256(digest)]));
}

function sha256(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}

function encodeBase58(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = (BASE58_ALPHABET[Number(value % 58n)] ?? '') + text;
    value /= 58n;
  }
  let leadingZeros = 0;
  while (leadingZeros < bytes.length && bytes[leadingZeros] === 0) leadingZeros += 1;
  return '1'.repeat(leadingZeros) + text;
}
