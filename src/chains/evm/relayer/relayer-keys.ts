import { getAddress, isHex, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../../../platform/clock.js';
import type { SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db, type Executor } from '../../../platform/database/database.js';
import { findRelayer, hasOpenTransactions, insertRelayerIfAbsent, upsertRelayerKey, type RelayerRow } from './relayer.repository.js';
import { createRpcClient } from './rpc-client.js';

/** The account that sends a network's sweeps and pays their gas (never holds merchants' money). */
export interface Relayer {
  readonly chainId: number;
  readonly address: Address;
}

/**
 * The network's relayer, generated on first call: a fresh key sealed with
 * SECRET_KEY. Safe when several processes start at once: each inserts its own
 * key with ON CONFLICT DO NOTHING, and all read back the one that won.
 */
export async function ensureRelayer(db: Db, secrets: SecretBox, chainId: number): Promise<Relayer> {
  const existing = await findRelayer(db, chainId);
  if (existing !== undefined) return toRelayer(existing);
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  await insertRelayerIfAbsent(db, { chainId, address, sealedKey: secrets.seal(privateKey) });
  const stored = await findRelayer(db, chainId);
  if (stored === undefined) throw new Error(`relayer of chain ${chainId} vanished right after its insert`);
  return toRelayer(stored);
}

export type ImportRelayerOutcome =
  | { readonly outcome: 'imported'; readonly relayer: Relayer }
  /** The current relayer still has transactions in flight: replacing its key now would strand their nonces. */
  | { readonly outcome: 'busy'; readonly relayer: Relayer };

/**
 * Replaces (or sets) the network's relayer key with an operator's own (CLI
 * `ivory relayer import`). Refused while the current relayer has unsettled
 * transactions. The stored nonce restarts at 0 and is raised to the chain's
 * count before the next signature, so a key already used elsewhere is fine.
 */
export async function importRelayerKey(db: Db, secrets: SecretBox, clock: Clock, chainId: number, privateKey: string): Promise<ImportRelayerOutcome> {
  if (!isHex(privateKey) || privateKey.length !== 66) throw new Error('relayer key must be 0x followed by 64 hex digits');
  const address = privateKeyToAccount(privateKey).address;
  return inTransaction(db, async (trx) => {
    const current = await findRelayer(trx, chainId);
    if (current !== undefined && getAddress(current.address) !== address && (await hasOpenTransactions(trx, chainId))) {
      return { outcome: 'busy', relayer: toRelayer(current) } as const;
    }
    await upsertRelayerKey(trx, { chainId, address, sealedKey: secrets.seal(privateKey) }, clock.now());
    return { outcome: 'imported', relayer: { chainId, address } } as const;
  });
}

export interface RelayerStatus {
  readonly chainId: number;
  readonly address: Address;
  /** Native coin balance in wei; null when the node did not answer in time. */
  readonly balance: bigint | null;
}

/**
 * What the admin endpoint shows of a network's relayer. Undefined before the
 * relayer exists. Never throws for a node that is down: the balance is null.
 */
export async function relayerStatus(db: Executor, network: { readonly chainId: number; readonly rpcUrl?: string; readonly rpcUrls?: readonly string[] }, timeoutMs = 3_000): Promise<RelayerStatus | undefined> {
  const row = await findRelayer(db, network.chainId);
  if (row === undefined) return undefined;
  const address = getAddress(row.address);
  let balance: bigint | null = null;
  try {
    balance = await createRpcClient(network.rpcUrls ?? [network.rpcUrl ?? ''], timeoutMs).getBalance({ address });
  } catch {
    balance = null;
  }
  return { chainId: network.chainId, address, balance };
}

/** The relayer's signing account, from its sealed key. Only the signing step calls this. */
export function relayerAccount(secrets: SecretBox, row: RelayerRow): PrivateKeyAccount {
  const account = privateKeyToAccount(secrets.open(row.sealedKey) as Hex);
  if (account.address !== getAddress(row.address)) throw new Error(`relayer key of chain ${row.chainId} does not match its address`);
  return account;
}

function toRelayer(row: RelayerRow): Relayer {
  return { chainId: row.chainId, address: getAddress(row.address) };
}
