import { createHash } from 'node:crypto';
import type { ChainFamily } from '../chain-network.js';
import type { AddressRequest, ChainAdapter } from '../chain-adapter.js';
import { addressCodec } from '../families.js';

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
  const codec = addressCodec(family);
  const digest = sha256(Buffer.from(`ivory-sandbox-address:${issuanceId}`));
  return codec.spellAddress(digest.subarray(0, codec.accountBytes));
}

/** A transaction id for a simulated transfer, in the family's usual spelling (a 64-byte signature on Solana). */
export function sandboxTxHash(family: ChainFamily, seed: Buffer): string {
  const codec = addressCodec(family);
  const digest = sha256(seed);
  return codec.spellTxId(Buffer.concat([digest, sha256(digest)]).subarray(0, codec.txIdBytes));
}

function sha256(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}
