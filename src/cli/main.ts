#!/usr/bin/env node
import { buildApp } from '../app.js';
import type { Config } from '../platform/config.js';
import { openConfiguredDatabase } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { adminCommand } from './admin-command.js';
import { contractsCommand } from './contracts-command.js';
import { loadCliConfig } from './load-cli-config.js';
import { relayerCommand } from './relayer-command.js';

const USAGE = `usage: ivory <command>

commands:
  serve [--role all|api|worker]   run the API, hosted pages and workers (default role: all)
  migrate                         apply database migrations and exit
  contracts deploy --rpc-url URL --private-key HEX --fee-wallet ADDRESS
                                  deploy the forwarder factories to an EVM network
  contracts recover --issuance ID --asset TOKEN|native --rpc-url URL
                                  move a late transfer or stray coin along the committed split (key on stdin)
  relayer import --chain-id ID    replace a network's relayer key (read from standard input)
  admin block|unblock|wallet|audit  operator actions on a merchant, and the audit log (ivory admin --help)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Needs no configuration: it talks to a chain, not to Ivory's storage.
  if (command === 'contracts') return contractsCommand(rest);
  const config = loadCliConfig();
  if (config === undefined) return 2;
  switch (command) {
    case 'serve':
      return serve(config, roleOf(rest));
    case 'migrate':
      return runMigrations(config);
    case 'relayer':
      return relayerCommand(config, rest);
    case 'admin':
      return adminCommand(config, rest);
    default:
      console.error(USAGE);
      return command === undefined || command === '--help' ? 0 : 2;
  }
}

function roleOf(args: string[]): 'all' | 'api' | 'worker' {
  const index = args.indexOf('--role');
  const role = index === -1 ? 'all' : args[index + 1];
  if (role !== 'all' && role !== 'api' && role !== 'worker') {
    console.error('--role must be all, api or worker');
    process.exit(2);
  }
  return role;
}

async function serve(config: Config, role: 'all' | 'api' | 'worker'): Promise<number> {
  const app = await buildApp({ config, runJobs: role !== 'api' });
  const log = app.server.log;
  if (app.database.kind === 'embedded') {
    log.warn(
      { dataDir: config.dataDir },
      'embedded storage (PGlite): data survives a process crash but not a power loss (no fsync); use DATABASE_URL with PostgreSQL in production',
    );
  }
  if (role !== 'worker') {
    await app.server.listen({ port: config.port, host: config.host });
  }
  log.info({ role, publicUrl: config.publicUrl }, 'ivory started');

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await app.close();
  return 0;
}

async function runMigrations(config: Config): Promise<number> {
  const database = await openConfiguredDatabase(config);
  try {
    const applied = await migrate(database.db);
    console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
