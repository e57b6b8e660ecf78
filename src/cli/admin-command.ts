import { CHAIN_FAMILIES } from '../chains/index.js';
import { blockMerchant, CLI_ACTOR, getMerchantPayoutSetup, listAuditEntries, setMerchantPayoutSetup, unblockMerchant, type PayoutSetupChange } from '../admin/index.js';
import { systemClock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import { openConfiguredDatabase, type DatabaseHandle } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { IvoryError } from '../platform/errors.js';
import { ledgerPorts } from '../ledger-ports.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const ADMIN_USAGE = `usage: ivory admin <command>

Operator actions on the configured storage, the same use cases as the
operator API (/admin/v1), audited with source "cli".

commands:
  block --merchant ID --reason TEXT   block a merchant: cancels its unpaid invoices,
                                      disables its deposit addresses, stops its keys
  unblock --merchant ID               restore access (cancelled invoices stay cancelled)
  wallet --merchant ID [--evm ADDRESS] [--solana ADDRESS] [--tron ADDRESS] [--tron-enabled true|false]
                                      set up the merchant's service wallet, the address per
                                      network family that shops with payout target "wallet"
                                      are paid into ("none" removes one); Ivory keeps no key
                                      for it. Without changes, prints the current setup
  audit [--limit N]                   print the audit log, newest first, one JSON object a line`;

/** Refusals of what the operator typed: usage errors (exit 2), like a bad flag. */
const USAGE_ERRORS: ReadonlySet<string> = new Set(['invalid_reason', 'invalid_recipient', 'invalid_solana_address', 'invalid_tron_address', 'invalid_tron_checksum']);

/** Each command's flags, all taking a value. */
const COMMANDS: Readonly<Record<string, readonly string[]>> = {
  block: ['merchant', 'reason'],
  unblock: ['merchant'],
  wallet: ['merchant', ...CHAIN_FAMILIES, 'tron-enabled'],
  audit: ['limit'],
};

/** `loadConfig` runs only once the arguments are valid and no help was asked for. */
export async function adminCommand(loadConfig: () => Config | undefined, args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    (sub === undefined ? console.error : console.log)(ADMIN_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const flags = COMMANDS[sub];
  if (flags === undefined) {
    console.error(`ivory admin: unknown command "${sub}" (try: ivory admin --help)`);
    return 2;
  }
  const parsed = parseCommandFlags(`ivory admin ${sub}`, ADMIN_USAGE, rest, flags);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { values } = parsed;
  const usageProblem = checkUsage(sub, values);
  if (usageProblem !== undefined) {
    console.error(`ivory admin ${sub}: ${usageProblem}`);
    return 2;
  }

  const config = loadConfig();
  if (config === undefined) return 2;
  const database = await openConfiguredDatabase(config);
  try {
    await migrate(database.db);
    // The same ledger ports as the app's: blocking appends invoice.cancelled events, which fan out to webhooks.
    const deps = { db: database.db, clock: systemClock, ledger: ledgerPorts };
    const merchantId = String(values.merchant);
    switch (sub) {
      case 'block':
        console.log(JSON.stringify(await blockMerchant(deps, { merchantId, reason: String(values.reason), actor: CLI_ACTOR })));
        return 0;
      case 'unblock':
        console.log(JSON.stringify(await unblockMerchant(deps, { merchantId, actor: CLI_ACTOR })));
        return 0;
      case 'wallet': {
        const change = walletChange(values);
        const setup =
          change === undefined ? await getMerchantPayoutSetup(database.db, merchantId) : await setMerchantPayoutSetup(deps, { merchantId, change, actor: CLI_ACTOR });
        console.log(JSON.stringify(setup));
        return 0;
      }
      default:
        return await printAudit(database, values.limit === undefined ? undefined : Number(values.limit));
    }
  } catch (error) {
    if (!(error instanceof IvoryError)) throw error;
    console.error(`ivory admin ${sub}: ${describe(error, String(values.merchant))}`);
    return USAGE_ERRORS.has(error.code) ? 2 : 1;
  } finally {
    await database.close();
  }
}

function checkUsage(sub: string, values: Partial<Record<string, string>>): string | undefined {
  if (sub !== 'audit' && (typeof values.merchant !== 'string' || values.merchant === '')) return '--merchant ID is required';
  if (sub === 'block' && typeof values.reason !== 'string') return '--reason TEXT is required';
  if (sub === 'wallet' && values['tron-enabled'] !== undefined && values['tron-enabled'] !== 'true' && values['tron-enabled'] !== 'false') {
    return '--tron-enabled must be true or false';
  }
  if (sub === 'audit' && values.limit !== undefined && !/^[1-9]\d*$/.test(String(values.limit))) return '--limit must be a positive integer';
  return undefined;
}

/** The flags of `ivory admin wallet` as an operator change; undefined when none is given (then the command prints). */
function walletChange(values: Partial<Record<string, string>>): PayoutSetupChange | undefined {
  const wallets = Object.fromEntries(
    CHAIN_FAMILIES.flatMap((family) => {
      const value = values[family];
      return value === undefined ? [] : [[family, value === 'none' ? null : value]];
    }),
  );
  const tronEnabled = values['tron-enabled'];
  if (Object.keys(wallets).length === 0 && tronEnabled === undefined) return undefined;
  return { service_wallets: wallets, ...(tronEnabled === undefined ? {} : { tron_enabled: tronEnabled === 'true' }) };
}

/** Every entry, newest first, page after page; `limit` stops after that many. */
async function printAudit(database: DatabaseHandle, limit: number | undefined): Promise<number> {
  let printed = 0;
  let cursor: string | undefined;
  do {
    const page = await listAuditEntries(database.db, { limit: Math.min(200, limit === undefined ? 200 : limit - printed), ...(cursor === undefined ? {} : { cursor }) });
    for (const entry of page.entries) console.log(JSON.stringify(entry));
    printed += page.entries.length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && (limit === undefined || printed < limit));
  return 0;
}

function describe(error: IvoryError, merchantId: string): string {
  switch (error.code) {
    case 'not_found':
      return `no merchant ${merchantId}`;
    case 'invalid_reason':
      return '--reason must be 1 to 500 characters, not only blanks';
    case 'invalid_recipient':
      return '--evm must be an EVM address (EIP-55 checksum when mixed case), not the zero address';
    case 'invalid_solana_address':
      return '--solana must be a base58 ed25519 public key on the curve (not a program-derived address)';
    case 'invalid_tron_address':
    case 'invalid_tron_checksum':
      return `--tron must be a base58check Tron address (${error.code})`;
    default:
      return error.code;
  }
}
