import { readFileSync } from 'node:fs';
import { importRelayerKey, importSolanaRelayerKey, importTronRelayerKey, parseSolanaKeypair } from '../chains/index.js';
import { systemClock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import { SecretBox } from '../platform/crypto.js';
import { openConfiguredDatabase } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { secretKey } from '../app.js';
import { readPrivateKey } from './read-private-key.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const RELAYER_USAGE = `usage: ivory relayer import --chain-id ID [--family evm|tron|solana] < key.txt

Replaces the relayer of EVM network ID (the account that sends sweeps and pays
their gas; one per network, generated at first start) by the private key read
from standard input (0x + 64 hex digits), sealed with SECRET_KEY. Refused while
the current relayer still has payout transactions in flight. The key is read
from standard input, never from the command line, so it stays out of the
process list and shell history. With --family tron the network is a Tron one
(its relayer burns TRX for energy; no nonce is stranded by a replacement).
With --family solana the network is a Solana one (its relayer pays every fee
and the deposit token accounts' rent) and standard input holds the 64-byte
keypair as wallets export it: base58 (Phantom, solana-keygen), or the JSON
array of bytes of a solana-keygen keypair file (< ~/.config/solana/id.json);
refused, like EVM, while a sweep signed by the current relayer may still land.`;

/** `loadConfig` runs only once the arguments are valid and no help was asked for. */
export async function relayerCommand(loadConfig: () => Config | undefined, args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    (sub === undefined ? console.error : console.log)(RELAYER_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'import') {
    console.error(`ivory relayer: unknown command "${sub}" (try: ivory relayer --help)`);
    return 2;
  }
  const parsed = parseCommandFlags('ivory relayer import', RELAYER_USAGE, rest, ['chain-id', 'family']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const chainIdText = parsed.values['chain-id'];
  const chainId = Number(chainIdText);
  if (!Number.isSafeInteger(chainId) || chainId < 1) {
    console.error('ivory relayer import: --chain-id must be a positive integer');
    return 2;
  }
  const family = parsed.values.family ?? 'evm';
  if (family !== 'evm' && family !== 'tron' && family !== 'solana') {
    console.error('ivory relayer import: --family must be evm, tron or solana');
    return 2;
  }
  const config = loadConfig();
  if (config === undefined) return 2;
  if (family === 'solana') return importSolana(config, chainId);
  const privateKey = readPrivateKey('ivory relayer import');
  if (privateKey === undefined) return 2;
  const database = await openConfiguredDatabase(config);
  try {
    await migrate(database.db);
    const secrets = new SecretBox(secretKey(config));
    if (family === 'tron') {
      const relayer = await importTronRelayerKey(database.db, secrets, systemClock, chainId, privateKey);
      console.log(`relayer of Tron chain ${chainId} is now ${relayer.address}; fund it with TRX (or delegate energy to it)`);
      return 0;
    }
    const outcome = await importRelayerKey(database.db, secrets, systemClock, chainId, privateKey);
    if (outcome.outcome === 'busy') {
      console.error(`ivory relayer import: the relayer ${outcome.relayer.address} of chain ${chainId} still has payout transactions in flight; try again once they are confirmed`);
      return 1;
    }
    console.log(`relayer of chain ${chainId} is now ${outcome.relayer.address}; fund it with the network's native coin`);
    return 0;
  } finally {
    await database.close();
  }
}

async function importSolana(config: Config, chainId: number): Promise<number> {
  const keypair = parseSolanaKeypair(readFileSync(0, 'utf8'));
  if ('problem' in keypair) {
    console.error(`ivory relayer import: standard input must hold a Solana keypair (base58 of 64 bytes, or a keypair file's JSON array): ${keypair.problem}`);
    return 2;
  }
  const database = await openConfiguredDatabase(config);
  try {
    await migrate(database.db);
    const outcome = await importSolanaRelayerKey(database.db, new SecretBox(secretKey(config)), systemClock, chainId, keypair.seed);
    if (outcome.outcome === 'busy') {
      console.error(`ivory relayer import: the relayer ${outcome.relayer.address} of Solana chain ${chainId} still has sweeps in flight; try again once they are finalized`);
      return 1;
    }
    console.log(`relayer of Solana chain ${chainId} is now ${outcome.relayer.address}; fund it with SOL (it pays every fee and the deposit token accounts' rent)`);
    return 0;
  } finally {
    keypair.seed.fill(0);
    await database.close();
  }
}
