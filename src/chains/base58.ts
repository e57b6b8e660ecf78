import { base58 } from '@scure/base';

/** Base58 (Bitcoin alphabet) to bytes; undefined for text outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}

export { base58 };
