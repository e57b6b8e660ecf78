#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadCliConfig } from './load-cli-config.js';

const USAGE = `usage: ivory <command> [flags]
       ivory --help | --version

commands:
  serve [--role all|api|worker]   run the API, hosted pages and workers (default role: all)
  migrate                         apply database migrations and exit
  contracts deploy --rpc-url URL --private-key HEX --fee-wallet ADDRESS
                                  deploy the forwarder factories to an EVM network
  contracts deploy --family tron --api-url URL --private-key HEX --fee-wallet T…
                                  deploy them to a Tron network through its node's HTTP API
  contracts recover --issuance ID --asset TOKEN|native --rpc-url URL
                                  move a late transfer or stray coin along the committed split (key on stdin)
  relayer import --chain-id ID    replace a network's relayer key (read from standard input)
  solana export-key --issuance ID print one Solana deposit key to standard output (recovery by hand)
  admin block|unblock|wallet|audit  operator actions on a merchant, and the audit log
  demo [--api-url URL]            run the sandbox loop against a running server, printing each call
  webhooks receive --secret S     a local webhook receiver that checks signatures (development)
  mcp --api-url URL               an MCP server on stdio for an agent's host (key in IVORY_API_KEY)

Every command takes --help (-h). Configuration comes from the environment
(PORT, DATA_DIR, DATABASE_URL, SECRET_KEY, LOG_LEVEL, …; see the README).
Exit codes: 0 success, 1 failure, 2 usage or configuration error.`;

interface Command {
  readonly usage: string;
  readonly run: (args: readonly string[]) => Promise<number>;
}

/**
 * Each command, loaded only when named: `ivory --help` and `--version` then
 * load none of the application (seconds of module loading on a small machine).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => import('./serve-command.js').then((module) => configured(module.SERVE_USAGE, module.serveCommand)),
  migrate: async () => import('./migrate-command.js').then((module) => configured(module.MIGRATE_USAGE, module.migrateCommand)),
  // Needs no configuration for deploy: it talks to a chain, not to Ivory's storage.
  contracts: async () => import('./contracts-command.js').then((module) => ({ usage: module.CONTRACTS_USAGE, run: module.contractsCommand })),
  solana: async () => import('./solana-command.js').then((module) => configured(module.SOLANA_USAGE, module.solanaCommand)),
  relayer: async () => import('./relayer-command.js').then((module) => configured(module.RELAYER_USAGE, module.relayerCommand)),
  admin: async () => import('./admin-command.js').then((module) => configured(module.ADMIN_USAGE, module.adminCommand)),
  // These three talk to a running server over HTTP, never to its storage.
  demo: async () => import('./demo-command.js').then((module) => ({ usage: module.DEMO_USAGE, run: module.demoCommand })),
  webhooks: async () => import('./webhooks-command.js').then((module) => ({ usage: module.WEBHOOKS_USAGE, run: module.webhooksCommand })),
  // A client of any Ivory's public API: stdout is the MCP channel, so it prints nothing else there.
  mcp: async () => import('./mcp-command.js').then((module) => ({ usage: module.MCP_USAGE, run: module.mcpCommand })),
};

/** A command that reads Ivory's configuration, given the loader of it. */
function configured(usage: string, run: (loadConfig: typeof loadCliConfig, args: readonly string[]) => Promise<number>): Command {
  return { usage, run: (args) => run(loadCliConfig, args) };
}

async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    console.error(USAGE);
    return 2;
  }
  if (first === 'help') {
    if (rest[0] === undefined) {
      console.log(USAGE);
      return 0;
    }
    const topic = COMMANDS[rest[0]];
    if (topic === undefined) return unknownCommand(rest[0]);
    console.log((await topic()).usage);
    return 0;
  }
  if (first.startsWith('-')) return globalFlags(argv);
  const command = COMMANDS[first];
  return command === undefined ? unknownCommand(first) : (await command()).run(rest);
}

function unknownCommand(name: string): number {
  console.error(`ivory: unknown command "${name}" (try: ivory --help)`);
  return 2;
}

/** `ivory --help`, `ivory --version`; any other flag before a command is refused. */
function globalFlags(argv: readonly string[]): number {
  let values: { help?: boolean; version?: boolean };
  try {
    values = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'V' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`ivory: ${(error as Error).message.split('\n')[0]} (try: ivory --help)`);
    return 2;
  }
  if (values.version === true) {
    console.log(packageVersion());
    return 0;
  }
  console.log(USAGE);
  return 0;
}

function packageVersion(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two levels below package.json.
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    const hint = whatToDoInstead(process.argv[2], error);
    if (hint !== undefined) console.error(hint);
    process.exit(1);
  },
);

/** For a command refused because a running server holds the embedded storage: what to do instead. */
function whatToDoInstead(command: string | undefined, error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'DataDirectoryInUse') return undefined;
  const pid = (error as Error & { holder?: number }).holder;
  const stop = `stop it first (Ctrl-C in its terminal, or kill ${pid}), run this command, then start it again`;
  if (command === 'migrate') return `Not needed while it runs: \`ivory serve\` applies pending migrations when it starts. To apply new ones, restart the server.`;
  if (command === 'admin') {
    return (
      `Either ${stop}, or do the same through the running server: the operator API at {PUBLIC_URL}/admin/v1 ` +
      `(start the server with ADMIN_TOKEN set; README "Operator API: blocking merchants, limits, fees, audit"), or use PostgreSQL (DATABASE_URL), which several processes share.`
    );
  }
  return `Embedded storage serves one process: ${stop}; or use PostgreSQL (DATABASE_URL), which several processes share.`;
}
