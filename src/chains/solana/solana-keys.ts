import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db, Executor } from '../../platform/database/database.js';
import { base58 } from '../base58.js';
import { deriveDepositKey, type DepositKey } from './deposit-keys.js';
import {
  findSealedDepositSeed,
  findSolanaRelayerRow,
  insertDepositSeedIfAbsent,
  insertSolanaRelayerIfAbsent,
} from './solana-keys.repository.js';

export { clearLamportsNeeded, findLamportsNeeded, noteLamportsNeeded } from './solana-keys.repository.js';

/**
 * The two Solana secrets of a deployment, both sealed with SECRET_KEY and
 * generated on first start (several processes starting at once all read back
 * the one that won the insert):
 * - per network, the relayer: fee payer of every sweep and rent payer of the
 *   deposit token accounts; a leak wastes its SOL, never moves a token;
 * - one deposit seed, from which every issuance's deposit key is derived
 *   (deposit-keys.ts): a leak is theft of every deposit address (decision
 *   0036), so it is opened only where a sweep is signed or an operator
 *   exports one key.
 */
export interface SolanaRelayer {
  readonly chainId: number;
  /** base58. */
  readonly address: string;
}

const SEED_BYTES = 64;

function addressOf(privateKey: Uint8Array): string {
  return base58.encode(ed25519.getPublicKey(privateKey));
}

export async function ensureSolanaRelayer(db: Db, secrets: SecretBox, chainId: number): Promise<SolanaRelayer> {
  const existing = await findSolanaRelayerRow(db, chainId);
  if (existing !== undefined) return { chainId, address: existing.address };
  const privateKey = randomBytes(32);
  await insertSolanaRelayerIfAbsent(db, { chainId, address: addressOf(privateKey), sealedKey: secrets.seal(privateKey.toString('hex')) });
  const stored = await findSolanaRelayerRow(db, chainId);
  if (stored === undefined) throw new Error(`Solana relayer of chain ${chainId} vanished right after its insert`);
  return { chainId, address: stored.address };
}

export async function findSolanaRelayer(executor: Executor, chainId: number): Promise<SolanaRelayer | undefined> {
  const row = await findSolanaRelayerRow(executor, chainId);
  return row === undefined ? undefined : { chainId, address: row.address };
}

/** The relayer's 32-byte ed25519 private key, from its sealed form. Only signing steps call this. */
export async function solanaRelayerKey(executor: Executor, secrets: SecretBox, chainId: number): Promise<{ readonly address: string; readonly privateKey: Uint8Array }> {
  const row = await findSolanaRelayerRow(executor, chainId);
  if (row === undefined) throw new Error(`Solana chain ${chainId} has no relayer`);
  const privateKey = Uint8Array.from(Buffer.from(secrets.open(row.sealedKey), 'hex'));
  if (addressOf(privateKey) !== row.address) throw new Error(`relayer key of Solana chain ${chainId} does not match its address`);
  return { address: row.address, privateKey };
}

/** Makes sure the deployment has its deposit seed; never opens it. */
export async function ensureDepositSeed(db: Db, secrets: SecretBox): Promise<void> {
  if ((await findSealedDepositSeed(db)) !== undefined) return;
  await insertDepositSeedIfAbsent(db, secrets.seal(randomBytes(SEED_BYTES).toString('hex')));
}

/**
 * The deposit key of derivation slot `index`. Opens the seed: call only where a
 * sweep is signed or an operator exports a key, and drop the result after use.
 */
export async function openDepositKey(executor: Executor, secrets: SecretBox, index: number): Promise<DepositKey> {
  const sealed = await findSealedDepositSeed(executor);
  if (sealed === undefined) throw new Error('this deployment has no Solana deposit seed');
  const seed = Uint8Array.from(Buffer.from(secrets.open(sealed), 'hex'));
  try {
    return deriveDepositKey(seed, index);
  } finally {
    seed.fill(0);
  }
}
