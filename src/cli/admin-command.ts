import { blockMerchant, CLI_ACTOR, listAuditEntries, unblockMerchant } from '../admin/index.js';
import { connectEventSubscribers } from '../events/index.js';
import { connectPayoutLedger } from '../issuances/index.js';
import { payoutLedger } from '../payouts/index.js';
import { systemClock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import { openConfiguredDatabase, type DatabaseHandle } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { IvoryError } from '../platform/errors.js';
import { fanOutEvent } from '../webhook-delivery/index.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const ADMIN_USAGE = `usage: ivory admin <command>

Operator actions on the configured storage, the same use cases as the
operator API (/admin/v1), audited with source "cli".

commands:
  block --merchant ID --reason TEXT   block a merchant: cancels its unpaid invoices,
                                      disables its deposit addresses, stops its keys
  unblock --merchant ID               restore access (cancelled invoices stay cancelled)
  audit [--limit N]                   print the audit log, newest first, one JSON object a line`;

/** Each command's flags, all taking a value. */
const COMMANDS: Readonly<Record<string, readonly string[]>> = {
  block: ['merchant', 'reason'],
  unblock: ['merchant'],
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
    // What buildApp connects (app.ts): blocking appends invoice.cancelled events, which fan out to webhooks.
    connectPayoutLedger(payoutLedger);
    connectEventSubscribers([fanOutEvent]);
    const deps = { db: database.db, clock: systemClock };
    const merchantId = String(values.merchant);
    switch (sub) {
      case 'block':
        console.log(JSON.stringify(await blockMerchant(deps, { merchantId, reason: String(values.reason), actor: CLI_ACTOR })));
        return 0;
      case 'unblock':
        console.log(JSON.stringify(await unblockMerchant(deps, { merchantId, actor: CLI_ACTOR })));
        return 0;
      default:
        return await printAudit(database, values.limit === undefined ? undefined : Number(values.limit));
    }
  } catch (error) {
    if (!(error instanceof IvoryError)) throw error;
    console.error(`ivory admin ${sub}: ${describe(error, String(values.merchant))}`);
    return error.code === 'invalid_reason' ? 2 : 1;
  } finally {
    await database.close();
  }
}

function checkUsage(sub: string, values: Partial<Record<string, string>>): string | undefined {
  if (sub !== 'audit' && (typeof values.merchant !== 'string' || values.merchant === '')) return '--merchant ID is required';
  if (sub === 'block' && typeof values.reason !== 'string') return '--reason TEXT is required';
  if (sub === 'audit' && values.limit !== undefined && !/^[1-9]\d*$/.test(String(values.limit))) return '--limit must be a positive integer';
  return undefined;
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
    default:
      return error.code;
  }
}
