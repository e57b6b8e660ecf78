import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak256 } from 'viem';
import type { SignedTransaction } from './block.js';

/** The 20-byte address a secp256k1 private key controls: keccak256(uncompressed public key)[12:]. */
export function addressOfKey(privateKey: Uint8Array): Uint8Array {
  return keccak256(secp256k1.getPublicKey(privateKey, false).slice(1), 'bytes').slice(12);
}

/** The signer of a single-signature transaction, or undefined when the signature does not recover. */
export function recoverSigner(transaction: SignedTransaction): Uint8Array | undefined {
  if (transaction.signatures.length !== 1) return undefined;
  const signature = transaction.signatures[0] as Uint8Array;
  if (signature.length !== 65) return undefined;
  const v = signature[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return undefined;
  try {
    const publicKey = secp256k1.Signature.fromCompact(signature.slice(0, 64)).addRecoveryBit(recovery).recoverPublicKey(transaction.id).toRawBytes(false);
    return keccak256(publicKey.slice(1), 'bytes').slice(12);
  } catch {
    return undefined;
  }
}
