import { ed25519 } from '@noble/curves/ed25519';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import { inTransaction, type Db } from '../../platform/database/database.js';
import { base58, decodeBase58 } from '../base58.js';
import type { SolanaRelayer } from './solana-keys.js';
import { findSolanaRelayerRow, hasSolanaPayoutsInFlight, upsertSolanaRelayer } from './solana-keys.repository.js';

const KEYPAIR_BYTES = 64;

/**
 * An operator's Solana keypair in one of the forms wallets and tools hand out:
 * base58 of the 64 bytes (seed, then public key: Phantom's "export private
 * key", `solana-keygen`'s base58 output) or the JSON array of those 64 bytes
 * that `solana-keygen new -o file.json` writes. Answers the 32-byte seed, or
 * why the text is not a keypair. The public half must be the seed's: a pasted
 * key with a wrong or truncated public half would otherwise install a relayer
 * whose address nobody funds.
 */
export function parseSolanaKeypair(text: string): { readonly seed: Uint8Array; readonly address: string } | { readonly problem: string } {
  const trimmed = text.trim();
  let bytes: Uint8Array | undefined;
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { problem: 'not a JSON array of 64 bytes' };
    }
    if (!Array.isArray(parsed) || !parsed.every((value): value is number => Number.isInteger(value) && value >= 0 && value <= 255)) {
      return { problem: 'not a JSON array of 64 bytes' };
    }
    bytes = Uint8Array.from(parsed);
  } else {
    bytes = decodeBase58(trimmed);
    if (bytes === undefined) return { problem: 'neither base58 nor a JSON array of bytes' };
  }
  if (bytes.length !== KEYPAIR_BYTES) return { problem: `${bytes.length} bytes, a Solana keypair has 64 (seed, then public key)` };
  const seed = bytes.slice(0, 32);
  const publicKey = ed25519.getPublicKey(seed);
  if (base58.encode(publicKey) !== base58.encode(bytes.subarray(32))) return { problem: 'its public half is not the public key of its secret half' };
  bytes.fill(0);
  return { seed, address: base58.encode(publicKey) };
}

export type ImportSolanaRelayerOutcome =
  | { readonly outcome: 'imported'; readonly relayer: SolanaRelayer }
  /** The current relayer pays for sweeps still in flight (decision 0036). */
  | { readonly outcome: 'busy'; readonly relayer: SolanaRelayer };

/**
 * Replaces (or sets) a Solana network's relayer with the operator's key (CLI
 * `ivory relayer import --family solana`), sealed like a generated one.
 * Refused while a sweep signed by the current relayer may still land, as for
 * EVM (one rule for operators, though Solana has no nonce to strand): that
 * transaction is paid by the old key, and an operator who replaces a relayer
 * usually empties the old account next; the sweep would then sit until its
 * blockhash expired before being re-signed with the new key.
 */
export async function importSolanaRelayerKey(db: Db, secrets: SecretBox, clock: Clock, chainId: number, seed: Uint8Array): Promise<ImportSolanaRelayerOutcome> {
  const address = base58.encode(ed25519.getPublicKey(seed));
  return inTransaction(db, async (trx) => {
    const current = await findSolanaRelayerRow(trx, chainId);
    if (current !== undefined && current.address !== address && (await hasSolanaPayoutsInFlight(trx, chainId))) {
      return { outcome: 'busy', relayer: { chainId, address: current.address } } as const;
    }
    await upsertSolanaRelayer(trx, { chainId, address, sealedKey: secrets.seal(Buffer.from(seed).toString('hex')) }, clock.now());
    return { outcome: 'imported', relayer: { chainId, address } } as const;
  });
}
