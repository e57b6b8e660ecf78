import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { exited, until } from './child-processes.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * What the `npm run devnet` tests (EVM, Tron, Solana) share: a data directory, the devnet
 * process and the process groups it prints, all removed after the file whatever happened.
 * Call inside `describe`: it registers its own `beforeAll` (the devnets build, when asked) and `afterAll`.
 */
export function devnetHarness(name: string, options: { readonly buildDevnets?: boolean } = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `ivory-${name}-`));
  let devnet: ChildProcess | undefined;
  const childPids: number[] = [];

  if (options.buildDevnets === true) {
    beforeAll(() => {
      // What `npm run devnet` does before the script: `npm run devnets:build`.
      execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'devnets/tsconfig.json'], { cwd: root, stdio: 'inherit' });
    }, 60_000);
  }

  afterAll(async () => {
    // Whatever happened, leave nothing running: the children run in their own process groups.
    for (const pid of childPids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (devnet !== undefined && devnet.exitCode === null && devnet.signalCode === null) devnet.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    dataDir,
    /** Runs `node scripts/devnet.mjs <args>` until it prints `banner`; answers the process and all it printed by then. */
    async start(args: readonly string[], env: NodeJS.ProcessEnv, banner: string, timeoutMs: number): Promise<{ child: ChildProcess; output: string }> {
      const child = spawn(process.execPath, [path.join(root, 'scripts', 'devnet.mjs'), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      devnet = child;
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await until(
        'devnet is up',
        async () => {
          if (child.exitCode !== null) throw new Error(`devnet exited with ${child.exitCode}:\n${output}`);
          return output.includes(banner) ? true : undefined;
        },
        timeoutMs,
      );
      return { child, output };
    },
    /** Process groups the devnet printed (Ivory, the node): killed at the end if still there. */
    track(...pids: number[]): void {
      childPids.push(...pids);
    },
  };
}

/** Runs `node scripts/devnet-pay.mjs <args>` to its end: its exit code and everything it printed. */
export async function runDevnetPay(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const pay = spawn(process.execPath, [path.join(root, 'scripts', 'devnet-pay.mjs'), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  pay.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  pay.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const { code } = await exited(pay);
  return { code, output };
}
