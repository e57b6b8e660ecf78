import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive } from '../support/child-processes.js';
import { freePort, waitForHealthz } from '../support/local-server.js';

// Issue 13 item 3: `npm start` on a built tree (test/global-setup.ts builds dist/ and stamps it),
// stopped by SIGTERM to npm or by Ctrl-C (SIGINT to the whole process group, as a terminal sends it).
const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-start-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  readonly npm: ChildProcess;
  readonly port: number;
  output(): string;
}

async function npmStart(): Promise<Started> {
  const port = await freePort();
  // Its own process group, so that a test can signal the group as a terminal's Ctrl-C does.
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    // Generous: on a machine shared with parallel test runs a start can take minutes of wall time.
    await waitForHealthz(`http://127.0.0.1:${port}`, { timeoutMs: 240_000, running: () => npm.exitCode === null, output: () => output });
  } catch (error) {
    // Never leave a half-started server holding the data directory for the next test.
    if (npm.exitCode === null) process.kill(-(npm.pid as number), 'SIGKILL');
    throw error;
  }
  return { npm, port, output: () => output };
}

/** The JSON log records among npm's own lines (stdout is not a terminal, so the server logs JSON). */
function records(output: string): { msg: string; pid: number; [key: string]: unknown }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; pid: number });
}

async function stopAndCheck(started: Started, stop: () => void): Promise<void> {
  const exited = new Promise<number | null>((resolve) => started.npm.on('exit', (code) => resolve(code)));
  const serverPid = records(started.output()).find((record) => record.msg.startsWith('ivory started'))?.pid;
  expect(serverPid).toBeTypeOf('number');
  stop();
  await exited;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const logged = records(started.output());
  expect(logged.at(-1)?.msg).toBe('ivory stopped');
  expect(alive(serverPid as number), 'the node server outlived npm').toBe(false);
  expect(fs.existsSync(path.join(dataDir, 'ivory.lock'))).toBe(false);
  await expect(fetch(`http://127.0.0.1:${started.port}/healthz`)).rejects.toThrow();
}

/** Whatever a failed assertion left running is killed, so that no test leaves a server behind. */
async function withStarted(test: (started: Started) => Promise<void>): Promise<void> {
  const started = await npmStart();
  try {
    await test(started);
  } finally {
    if (started.npm.exitCode === null && started.npm.signalCode === null) process.kill(-(started.npm.pid as number), 'SIGKILL');
  }
}

describe('npm start (issue 13 item 3)', () => {
  it('logs the storage with its data directory, the migrations applied and the listening URL, and stops on Ctrl-C (SIGINT to the process group)', async () => {
    await withStarted(async (started) => {
      const logged = records(started.output());
      expect(logged.find((record) => record.msg.startsWith('storage:'))).toMatchObject({ storage: 'pglite', dataDir });
      expect(logged.find((record) => record.msg.startsWith('migrations:'))?.applied).toEqual(
        fs.readdirSync(path.join(root, 'migrations')).filter((name) => name.endsWith('.sql')).sort(),
      );
      expect(logged.find((record) => record.msg.startsWith('ivory started'))).toMatchObject({ url: `http://127.0.0.1:${started.port}` });
      // Issue 20 item 6: in order, and the last start-up line says where the API and its reference are and what to try.
      const startUp = logged.map((record) => record.msg).filter((msg) => !msg.includes('request'));
      expect(startUp.slice(0, 3).map((msg) => msg.split(':')[0])).toEqual(['storage', 'embedded storage (PGlite)', 'migrations']);
      expect(startUp.at(-1)).toBe(
        `ivory started (role all) on http://127.0.0.1:${started.port}. API: http://localhost:${started.port}/api/v1 · ` +
          `reference: http://localhost:${started.port}/api/v1/openapi.json and docs/api-guide.md · try it: npx ivory demo (in another terminal)`,
      );
      // A command that needs the embedded storage the server holds says what to do instead.
      const migrate = spawnSync(process.execPath, ['dist/cli/main.js', 'migrate'], { cwd: root, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, encoding: 'utf8' });
      expect(migrate.status).toBe(1);
      expect(migrate.stderr).toContain(`data directory ${dataDir} is in use by process`);
      expect(migrate.stderr).toContain('`ivory serve` applies pending migrations when it starts');
      const admin = spawnSync(process.execPath, ['dist/cli/main.js', 'admin', 'audit'], { cwd: root, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, encoding: 'utf8' });
      expect(admin.status).toBe(1);
      expect(admin.stderr).toMatch(/stop it first \(Ctrl-C in its terminal, or kill \d+\).*the operator API at \{PUBLIC_URL\}\/admin\/v1/);
      // npm forwards the signal too, so the server gets SIGINT twice: the second must not cut its stop short.
      await stopAndCheck(started, () => process.kill(-(started.npm.pid as number), 'SIGINT'));
    });
  }, 300_000);

  // How fast it answers is measured by bench/start-stop.mjs, not asserted here: wall time on a shared machine says little.
  it('on a built tree skips the build, answers /healthz, and stops on SIGTERM to npm', async () => {
    await withStarted(async (started) => {
      expect(started.output()).toContain('build: dist/ is up to date');
      expect(records(started.output()).find((record) => record.msg.startsWith('migrations:'))?.applied).toEqual([]);
      // Every request log line carries the request id, the caller's own when it sends a sane one.
      const probe = await fetch(`http://127.0.0.1:${started.port}/healthz`, { headers: { 'x-request-id': 'start-stop-probe' } });
      expect(probe.headers.get('x-request-id')).toBe('start-stop-probe');
      const probeLines = () => records(started.output()).filter((record) => record.reqId === 'start-stop-probe');
      for (let waited = 0; probeLines().length < 2 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(probeLines().map((record) => record.msg)).toEqual(['incoming request', 'request completed']);
      const requestLines = records(started.output()).filter((record) => record.req !== undefined || record.res !== undefined);
      expect(requestLines.every((record) => typeof record.reqId === 'string')).toBe(true);
      await stopAndCheck(started, () => started.npm.kill('SIGTERM'));
    });
  }, 300_000);
});
