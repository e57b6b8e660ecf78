/* global process, console, setTimeout, clearTimeout, fetch */
// What the devnets (scripts/devnet.mjs: EVM, scripts/devnet-tron.mjs: Tron, scripts/devnet-solana.mjs: Solana) share: children
// in their own process groups, stopped together on Ctrl-C; waiting for something to come up;
// calling Ivory's API; writing the devnet's catalogue.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export const children = [];
let stopping = false;

/**
 * Stops every child (each runs in its own process group, so a wrapper and the binary under it
 * go together), waits for them, and exits. SIGKILL after 5 s, or at once on a second Ctrl-C.
 */
export async function stopAll(code = 0) {
  if (stopping) {
    for (const child of children) signal(child, 'SIGKILL');
    return;
  }
  stopping = true;
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exited = Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  for (const child of [...running].reverse()) signal(child, 'SIGTERM');
  const timer = setTimeout(() => running.forEach((child) => signal(child, 'SIGKILL')), 5_000);
  await exited;
  clearTimeout(timer);
  process.exit(code);
}
function signal(child, name) {
  try {
    process.kill(-child.pid, name);
  } catch {
    // already gone
  }
}
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(name, () => void stopAll(0));

export function isStopping() {
  return stopping;
}

/** Runs `command` in its own process group; its exit, unless we are stopping, stops everything. */
export function start(command, args, env, name, stdout = 'inherit') {
  if (stopping) throw new Error(`not starting ${name}: stopping`);
  // detached: its own process group, which stopAll signals as a whole; Ctrl-C reaches only
  // this script, which then stops the children in order.
  const child = spawn(command, args, { env, stdio: ['ignore', stdout, 'inherit'], detached: true });
  child.on('exit', (code, signalName) => {
    if (!stopping) {
      console.error(`devnet: ${name} exited (${code ?? signalName}); stopping`);
      void stopAll(1);
    }
  });
  children.push(child);
  return child;
}

export async function waitFor(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`devnet: ${what} did not come up within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A caller of Ivory's API at `ivoryUrl`: JSON in and out, an idempotency key on every write. */
export function ivoryApi(ivoryUrl) {
  return async function api(method, url, { token, body, idempotent = method !== 'GET' } = {}) {
    const headers = { accept: 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotent) headers['idempotency-key'] = `devnet-${randomBytes(8).toString('hex')}`;
    const response = await fetch(`${ivoryUrl}${url.startsWith('/admin/') ? '' : '/api/v1'}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`devnet: ${method} ${url} answered ${response.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
}

/**
 * Starts `ivory serve` from dist/ on the devnet's catalogue and data directory. Request logs
 * would bury the printed instructions: warnings only, unless the caller sets LOG_LEVEL.
 */
export function startIvory(root, { port, networksFile, dataDir, adminToken }) {
  return start(
    process.execPath,
    ['--enable-source-maps', path.join(root, 'dist', 'cli', 'main.js'), 'serve'],
    {
      ...process.env,
      PORT: String(port),
      NETWORKS_FILE: networksFile,
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? 'true',
    },
    'ivory',
  );
}

/** The network's entry in the operator API's `/admin/v1/networks`, or undefined while Ivory is not answering. */
export async function adminNetwork(ivoryUrl, adminToken, chainId) {
  const response = await fetch(`${ivoryUrl}/admin/v1/networks`, { headers: { authorization: `Bearer ${adminToken}` } });
  if (!response.ok) return undefined;
  return (await response.json()).find((network) => network.chain_id === chainId);
}

/**
 * Writes `<dataDir>/networks.json` afresh (the data directory emptied first): the bundled networks,
 * so that sandbox shops and wallet sign-in keep working, plus the devnet's own `network`, with the
 * devnet's fee terms (50 bps, 0.1–5 tokens at 18 decimals of a minimum; sweeps from 10 base units).
 * Answers the file's path.
 */
export function writeDevnetCatalogue(root, dataDir, network) {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const bundledFile = path.join(root, 'dist', 'catalogue', 'networks.default.json');
  const bundled = JSON.parse(readFileSync(bundledFile, 'utf8'));
  for (const bundledNetwork of bundled.networks) {
    for (const token of bundledNetwork.tokens) if (token.icon !== undefined) token.icon = path.resolve(path.dirname(bundledFile), token.icon);
  }
  bundled.networks.push({
    explorer_url: 'http://localhost',
    enabled: true,
    minimum_payment: '1',
    terms: {
      invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      sweep_threshold: '10',
      minimum_sweep: '1',
      maximum_sweep: '100000',
    },
    ...network,
  });
  const networksFile = path.join(dataDir, 'networks.json');
  writeFileSync(networksFile, `${JSON.stringify(bundled, null, 2)}\n`);
  return networksFile;
}
