import { exportDepositKey } from '../chains/index.js';
import type { Config } from '../platform/config.js';
import { SecretBox } from '../platform/crypto.js';
import { openConfiguredDatabase } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { secretKey } from '../app.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const SOLANA_USAGE = `usage: ivory solana export-key --issuance ID > key.txt

Prints the deposit key of one Solana issuance to standard output, and nothing
else there: base58 of the 64-byte keypair (seed, then public key), as Solana
wallets import it. For the deployment's owner recovering funds by hand (a late
transfer, a sweep that needs an operator): whoever holds this key can move
everything at that address, so write it to a file only you can read, use it,
and delete it (decision 0036). The address is written to standard error.`;

/** `ivory solana export-key`: 0 on success, 1 when the issuance has no Solana deposit address, 2 on a usage error. */
export async function solanaCommand(loadConfig: () => Config | undefined, args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    (sub === undefined ? console.error : console.log)(SOLANA_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'export-key') {
    console.error(`ivory solana: unknown command "${sub}" (try: ivory solana --help)`);
    return 2;
  }
  const parsed = parseCommandFlags('ivory solana export-key', SOLANA_USAGE, rest, ['issuance']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const issuanceId = parsed.values.issuance ?? '';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(issuanceId)) {
    console.error('ivory solana export-key: --issuance must be an issuance id (uuid)');
    return 2;
  }
  const config = loadConfig();
  if (config === undefined) return 2;
  const database = await openConfiguredDatabase(config);
  try {
    await migrate(database.db);
    const exported = await exportDepositKey(database.db, new SecretBox(secretKey(config)), issuanceId);
    if (exported === undefined) {
      console.error(`ivory solana export-key: issuance ${issuanceId} has no Solana deposit address`);
      return 1;
    }
    console.error(`deposit key of ${exported.address} (issuance ${issuanceId}):`);
    process.stdout.write(`${exported.secretKey}\n`);
    return 0;
  } finally {
    await database.close();
  }
}
