import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, waitForHealthz } from '../support/local-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/cli/main.js');

function run(env: Record<string, string>, args: string[]) {
  return spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the ivory command (platform issue, items 1-4)', () => {
  // The CLI is what `npm start` runs: the built program is tested, as shipped (test/global-setup.ts builds it).
  it('stops start-up with one line naming a bad variable', () => {
    const child = run({ PORT: 'eighty' }, ['serve']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise<void>((resolve) => {
      child.on('exit', (code) => {
        expect(code).toBe(2);
        expect(stderr.trim()).toBe('invalid configuration: PORT must be a whole number, got "eighty"');
        resolve();
      });
    });
  });

  it('serves /healthz on embedded storage, warns about durability, and exits cleanly on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-cli-'));
    const port = await freePort();
    const child = run({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' }, ['serve']);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      // Time-bounded and generous: on two cores shared with parallel test runs a start can take a minute or more.
      const health = await waitForHealthz(`http://127.0.0.1:${port}`, { timeoutMs: 240_000, running: () => child.exitCode === null, output: () => output });
      expect(await health.json()).toEqual({ status: 'ok' });
      const networks = await fetch(`http://127.0.0.1:${port}/api/v1/networks`);
      expect(networks.status).toBe(200);
      expect(output).toMatch(/not a power loss/);

      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'ivory.lock'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
