/* global process, console, performance, setTimeout, fetch */
// Start-up time on a built tree (issue 13 item 3: "/healthz within 5 s"; test/api/cli-start-stop.test.ts
// checks the behaviour, this measures the time): from spawning the command to the first
// /healthz 200, for `npm start` (npm, the build-if-changed check, then `ivory serve`) and for
// `node dist/cli/main.js serve` alone. Embedded PGlite in a temporary data directory, migrated
// by a first start that is reported apart; then BENCH_STARTS (3) starts of each, each stopped by
// SIGTERM before the next. Figures are reported, never asserted.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STARTS = Number(process.env.BENCH_STARTS || 3);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-bench-start-'));
const commands = { 'npm start': ['npm', ['start']], 'node dist/cli/main.js serve': [process.execPath, ['dist/cli/main.js', 'serve']] };

try {
  const first = await startAndStop(commands['node dist/cli/main.js serve']);
  console.log(`start-up to /healthz 200 (PGlite, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(1)}):`);
  console.log(`  first start, migrating an empty data directory: ${first.toFixed(0)} ms`);
  for (const [label, command] of Object.entries(commands)) {
    const times = [];
    for (let start = 0; start < STARTS; start += 1) times.push(await startAndStop(command));
    times.sort((a, b) => a - b);
    console.log(`  ${label}: median ${times[Math.floor(times.length / 2)].toFixed(0)} ms (${times.map((time) => time.toFixed(0)).join(', ')})`);
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** Milliseconds from spawn to the first /healthz 200; then SIGTERM, and waits for the exit. */
async function startAndStop([file, args]) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${file} ${args.join(' ')} exited with ${child.exitCode} before /healthz answered`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (health?.status === 200) return performance.now() - began;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    if (child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
