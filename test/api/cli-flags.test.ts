import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 13 item 4: the built program (test/global-setup.ts builds dist/), run as shipped.
const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/cli/main.js');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `ivory …` with a configuration that would fail (PORT) and a data
 * directory that does not exist: a command that gets as far as its work
 * would print the configuration error, and one that opened storage would
 * create the directory.
 */
function ivory(args: readonly string[], env: Record<string, string> = {}): Promise<Run & { dataDirCreated: boolean }> {
  const dataDir = path.join(os.tmpdir(), `ivory-cli-flags-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const child = spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), DATA_DIR: dataDir, PORT: 'eighty', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      const dataDirCreated = fs.existsSync(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, dataDirCreated });
    }),
  );
}

const HELP: readonly (readonly [string[], RegExp])[] = [
  [['--help'], /^usage: ivory <command>/],
  [['-h'], /^usage: ivory <command>/],
  [['help'], /^usage: ivory <command>/],
  [['help', 'serve'], /^usage: ivory serve/],
  [['serve', '--help'], /^usage: ivory serve/],
  [['serve', '-h'], /^usage: ivory serve/],
  [['serve', '--role', 'api', '--help'], /^usage: ivory serve/],
  [['migrate', '--help'], /^usage: ivory migrate/],
  [['contracts', '--help'], /^usage: ivory contracts deploy/],
  [['contracts', 'deploy', '--help'], /^usage: ivory contracts deploy/],
  [['contracts', 'recover', '--help'], /^usage: ivory contracts recover/],
  [['relayer', '--help'], /^usage: ivory relayer import/],
  [['relayer', 'import', '-h'], /^usage: ivory relayer import/],
  [['admin', '--help'], /^usage: ivory admin/],
  [['admin', 'block', '--help'], /^usage: ivory admin/],
  [['admin', 'unblock', '--help'], /^usage: ivory admin/],
  [['admin', 'audit', '--help'], /^usage: ivory admin/],
  [['demo', '--help'], /^usage: ivory demo/],
  [['webhooks', '--help'], /^usage: ivory webhooks receive/],
  [['webhooks', 'receive', '--help'], /^usage: ivory webhooks receive/],
  [['mcp', '--help'], /^usage: ivory mcp --api-url URL/],
  [['help', 'mcp'], /^usage: ivory mcp --api-url URL/],
];

describe('ivory command line (issue 13 item 4)', () => {
  it.each(HELP)('ivory %j prints its usage on stdout and exits 0 without reading configuration or touching storage', async (args, usage) => {
    const run = await ivory(args);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(usage);
    expect(run.stderr).toBe('');
    expect(run.dataDirCreated).toBe(false);
  });

  it('ivory --version prints the package version', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await ivory([flag]);
      expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  const REFUSED: readonly (readonly [string[], string])[] = [
    [['--bogus'], "ivory: Unknown option '--bogus' (try: ivory --help)"],
    [['deploy'], 'ivory: unknown command "deploy" (try: ivory --help)'],
    [['help', 'deploy'], 'ivory: unknown command "deploy" (try: ivory --help)'],
    [['serve', '--bogus'], "ivory serve: Unknown option '--bogus'"],
    [['serve', 'api'], "ivory serve: Unexpected argument 'api'. This command does not take positional arguments"],
    [['serve', '--role'], "ivory serve: Option '--role <value>' argument missing"],
    [['serve', '--role', '--help'], "ivory serve: Option '--role' argument is ambiguous."],
    [['serve', '--role=cron'], 'ivory serve: --role must be all, api or worker'],
    [['serve', '--role', 'cron'], 'ivory serve: --role must be all, api or worker'],
    [['migrate', '--force'], "ivory migrate: Unknown option '--force'"],
    [['admin', 'audit', '--bogus'], "ivory admin audit: Unknown option '--bogus'"],
    [['relayer', 'import', '--bogus'], "ivory relayer import: Unknown option '--bogus'"],
    [['contracts', 'deploy', '--bogus'], "ivory contracts deploy: Unknown option '--bogus'"],
    [['contracts', 'recover', '--bogus'], "ivory contracts recover: Unknown option '--bogus'"],
    [['mcp', '--bogus'], "ivory mcp: Unknown option '--bogus'"],
    [['mcp'], 'ivory mcp: --api-url must be the http(s) address of an Ivory API, ending in /api/v1'],
    [['mcp', '--api-url', 'http://127.0.0.1:9/api/v1'], 'ivory mcp: set IVORY_API_KEY to a shop API key (ivk_…)'],
  ];
  it.each(REFUSED)('ivory %j is refused with one line on stderr and exit 2, nothing stored', async (args, message) => {
    const run = await ivory(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${message}\n`);
    expect(run.dataDirCreated).toBe(false);
  });

  it.each([['--role=worker'], ['--role', 'worker'], ['--role=api'], ['--role', 'api']])(
    'ivory serve %s is accepted in both spellings (it goes on to read the configuration)',
    async (...flags) => {
      const run = await ivory(['serve', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('invalid configuration: PORT must be a whole number, got "eighty"\n');
      expect(run.dataDirCreated).toBe(false);
    },
  );
});
