import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitForHealthz } from '../support/local-server.js';

// Issue 20 item 2: the README's "Your first invoice" runs as written. Its shell blocks are
// taken from README.md itself: the first starts the server (run here as written, on a free
// port), the second is pasted into bash as a reader would, against that server. Only the two
// port numbers are changed, so that the test never depends on 8080 and 4000 being free.
const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-readme-'));
const running: ChildProcess[] = [];

afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The ```sh blocks of one README section, in order. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** A bash process in its own group (so that whatever it left in the background can be killed), with its output collected. */
function bash(script: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

let readme: string;
let port: number;

beforeAll(async () => {
  readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const [serverBlock] = shellBlocks(readme, 'Your first invoice');
  expect(serverBlock?.trim()).toMatch(/^(\w+=\S+ )*npm start$/);
  port = await freePort();
  const server = bash(serverBlock as string, { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  await waitForHealthz(`http://127.0.0.1:${port}`, { timeoutMs: 240_000, running: () => server.child.exitCode === null, output: server.stderr });
}, 300_000);

async function until(done: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !done()) await new Promise((resolve) => setTimeout(resolve, 200));
}

describe('README "Your first invoice" (issue 20 item 2)', () => {
  it('pastes: from a fresh server to a settled sandbox invoice and two verified webhooks', async () => {
    const [, loopBlock, ...others] = shellBlocks(readme, 'Your first invoice');
    expect(others).toEqual([]);
    expect(loopBlock).toContain('localhost:8080');

    const hookPort = await freePort();
    const script = `set -euo pipefail\n${(loopBlock as string).replaceAll('localhost:8080', `localhost:${port}`).replace(/\b4000\b/g, String(hookPort))}`;
    const loop = bash(script, {});
    const code = await loop.exited;
    expect(code, `the README's commands failed:\n${loop.stdout()}\n${loop.stderr()}`).toBe(0);
    const lines = loop.stdout().trim().split('\n');
    expect(lines.at(-1)).toBe('settled');
    expect(lines).toContain('{"completed":true}');
    expect(lines.some((line) => /^http:\/\/localhost:\d+\/pay\/[\w-]+$/.test(line))).toBe(true);

    // The receiver the reader started in the background prints each delivery as it arrives.
    await until(() => /verified invoice\.closed/.test(loop.stdout()) && /verified transfer\.confirmed/.test(loop.stdout()));
    expect(loop.stdout()).toMatch(/^verified transfer\.confirmed [0-9a-f-]{36}$/m);
    expect(loop.stdout()).toMatch(/^verified invoice\.closed [0-9a-f-]{36}$/m);
    expect(loop.stdout()).not.toMatch(/REJECTED/);
  }, 300_000);

  it('`npx ivory demo` runs the same loop and prints each request and answer', async () => {
    const demo = bash(`npx ivory demo --api-url http://localhost:${port}/api/v1`, {});
    expect(await demo.exited, demo.stdout() + demo.stderr()).toBe(0);
    const output = demo.stdout();
    for (const request of ['→ POST', '/auth/wallet/verify', '/onboarding', '/sandbox/simulate', '← 202']) expect(output).toContain(request);
    expect(output).toMatch(/"status": "settled"/);
    expect(output).toMatch(/verified transfer\.confirmed/);
    expect(output).toMatch(/verified invoice\.closed/);
    expect(output).toContain('Done: a sandbox invoice went from creation to settled, and its webhooks arrived signed.');
  }, 120_000);

  it('`ivory demo` says what to do when no server answers', async () => {
    const demo = bash(`node dist/cli/main.js demo --api-url http://127.0.0.1:${await freePort()}/api/v1`, {});
    expect(await demo.exited).toBe(1);
    expect(demo.stderr()).toMatch(/nothing answers at .*start the server first \(WEBHOOK_ALLOW_PRIVATE=true npm start\)/);
  });

  it('the development receiver answers 401 and prints REJECTED for a delivery signed with another secret', async () => {
    const hookPort = await freePort();
    const receiver = bash(`exec node dist/cli/main.js webhooks receive --port ${hookPort} --secret whsec_${Buffer.from('right').toString('base64')}`, {});
    await until(() => receiver.stderr().includes('listening on'), 20_000);
    const body = JSON.stringify({ id: '0b6f4f3e-6a55-4e0e-9a0b-6f2f4c1d2e3f', type: 'transfer.confirmed', created_at: new Date().toISOString(), data: {} });
    const forged = await fetch(`http://127.0.0.1:${hookPort}/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ivory-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body,
    });
    expect(forged.status).toBe(401);
    await until(() => receiver.stdout().includes('REJECTED'), 5_000);
    expect(receiver.stdout()).toBe('REJECTED transfer.confirmed 0b6f4f3e-6a55-4e0e-9a0b-6f2f4c1d2e3f\n');
  });
});
