import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db, Executor } from '../../platform/database/database.js';
import { tronAddress, tronWireAddress } from './tron-evm-address.js';
import type { TronApi } from './tron-api.js';
import { availableEnergy, trxBalance } from './tron-node-reads.js';
import { findTronRelayerRow, insertTronRelayerIfAbsent, upsertTronRelayer } from './tron-relayer.repository.js';

export { clearTrxNeeded, findTrxNeeded, noteTrxNeeded } from './tron-relayer.repository.js';

/**
 * A Tron network's relayer: the account that sends sweeps and pays their
 * energy (TRX burnt, or its staked energy). A secp256k1 key like an EVM one:
 * the same 20 bytes behind Tron's 0x41 prefix. Generated and sealed on first
 * start; several processes starting at once all read back the one that won.
 */
export interface TronRelayer {
  readonly chainId: number;
  /** `T…`. */
  readonly address: string;
}

export async function ensureTronRelayer(db: Db, secrets: SecretBox, chainId: number): Promise<TronRelayer> {
  const existing = await findTronRelayer(db, chainId);
  if (existing !== undefined) return existing;
  const privateKey = generatePrivateKey();
  await insertTronRelayerIfAbsent(db, { chainId, address: tronAddress(privateKeyToAccount(privateKey).address), sealedKey: secrets.seal(privateKey) });
  const stored = await findTronRelayer(db, chainId);
  if (stored === undefined) throw new Error(`Tron relayer of chain ${chainId} vanished right after its insert`);
  return stored;
}

export async function findTronRelayer(executor: Executor, chainId: number): Promise<TronRelayer | undefined> {
  const row = await findTronRelayerRow(executor, chainId);
  return row === undefined ? undefined : { chainId: row.chainId, address: row.address };
}

/**
 * Replaces (or sets) the network's relayer key with the operator's own (CLI
 * `ivory relayer import`). Tron has no nonce to strand: a transaction signed
 * by the old key still lands or expires on its own, and the tracker follows it by id.
 */
export async function importTronRelayerKey(db: Db, secrets: SecretBox, clock: Clock, chainId: number, privateKey: Hex): Promise<TronRelayer> {
  const address = tronAddress(privateKeyToAccount(privateKey).address);
  await upsertTronRelayer(db, { chainId, address, sealedKey: secrets.seal(privateKey) }, clock.now());
  return { chainId, address };
}

/** The relayer's private key (hex), from its sealed form. Only the signing step calls this. */
export async function tronRelayerKey(executor: Executor, secrets: SecretBox, chainId: number): Promise<{ readonly address: string; readonly privateKey: Hex }> {
  const row = await findTronRelayerRow(executor, chainId);
  if (row === undefined) throw new Error(`Tron chain ${chainId} has no relayer`);
  const privateKey = secrets.open(row.sealedKey) as Hex;
  if (tronAddress(privateKeyToAccount(privateKey).address) !== row.address) throw new Error(`relayer key of Tron chain ${chainId} does not match its address`);
  return { address: row.address, privateKey };
}

export interface TronRelayerStatus {
  readonly address: string;
  /** Sun; null when the node did not answer. */
  readonly balance: bigint | null;
  /** Energy usable now without burning TRX; null when the node did not answer. */
  readonly energy: bigint | null;
}

/** What the admin endpoint shows of the relayer; never throws for a node that is down. */
export async function tronRelayerStatus(db: Executor, api: TronApi, chainId: number): Promise<TronRelayerStatus | undefined> {
  const relayer = await findTronRelayer(db, chainId);
  if (relayer === undefined) return undefined;
  const wire = tronWireAddress(relayer.address);
  const [balance, energy] = await Promise.all([trxBalance(api, wire).catch(() => null), availableEnergy(api, wire).catch(() => null)]);
  return { address: relayer.address, balance, energy };
}
