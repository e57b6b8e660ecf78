/* global process, console, setTimeout, clearTimeout, fetch, Buffer */
// `npm run bench`: autocannon against the real app and a bare-Fastify baseline
// on the same storage (issue "Platform" 12, "Payment lifecycle" 11, "Webhooks" 9).
// Each server runs in its own child process; this process only generates load
// and, for the webhook section, receives deliveries. Numbers are reported,
// never asserted: the exit code is 0 whatever the ratios.
//
// Then the figures of whole processes (bench/start-stop.mjs: start-up to /healthz;
// bench/key-revocation.mjs: how long another process serves a revoked API key, on
// PostgreSQL only), and the EVM chain's figures (bench/chain-watcher.mjs, in its own
// process: catch-up throughput, detection latency, sweep gas).
//
// Environment: BENCH_ONLY (`http`, `list`, `process` or `chain`: that part alone; `list` is the
// issuance list section below without the rest of `http`), BENCH_SECONDS (10), BENCH_EVENTS (5000),
// BENCH_WRITERS (4), BENCH_LIST_ISSUANCES (100000 issuances in the listed shop; 0 skips the
// section), BENCH_DATABASE_URL (PostgreSQL; embedded PGlite in temporary directories
// otherwise); bench/chain-watcher.mjs lists its own.
import { fork, spawn as spawnProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = 10;
const SECONDS = positiveNumber('BENCH_SECONDS', 10);
const EVENTS = Math.round(positiveNumber('BENCH_EVENTS', 5000));
const EVENT_BATCH = 20;
/** Concurrent event writers (as several API processes would be); PGlite runs them one at a time anyway. */
const EVENT_WRITERS = Math.round(positiveNumber('BENCH_WRITERS', 4));
const WARMUP_SECONDS = Math.min(2, Math.max(1, Math.round(SECONDS / 5)));
const LIST_ISSUANCES = Math.round(nonNegativeNumber('BENCH_LIST_ISSUANCES', 100_000));

/** Ratios the issues set: route → minimum share of its baseline. */
/** Issue 13's table: checkout and /me at 0.7 of one primary-key read, invoice creation at 0.5 of one insert transaction. */
const TARGETS = { 'GET /me (API key)': 0.7, 'GET /checkout/:public_id': 0.7, 'POST /shops/:id/invoices': 0.5 };
const WEBHOOK_TARGET = { deliveriesPerSecond: 1000, p99Ms: 500 };

const ONLY = process.env.BENCH_ONLY ?? '';
if (!['', 'http', 'list', 'process', 'chain'].includes(ONLY)) {
  console.error(`BENCH_ONLY must be "http", "list", "process" or "chain", got "${ONLY}"`);
  process.exit(2);
}

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-bench-'));
const children = [];

try {
  if (ONLY === 'list') await listOnly();
  else if (ONLY === '' || ONLY === 'http') await main();
  if (ONLY === '' || ONLY === 'process') await processBench();
  if (ONLY === '' || ONLY === 'chain') await chainBench();
} catch (error) {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
} finally {
  await Promise.all(children.map((child) => stopChild(child)));
  fs.rmSync(tempRoot, { recursive: true, force: true });
}

async function main() {
  const baselineChild = spawn('baseline-server.mjs', { BENCH_BASELINE_DIR: path.join(tempRoot, 'baseline') });
  const baseline = await reply(baselineChild, 'ready', 120_000);
  const appChild = spawn('app-server.mjs', { BENCH_APP_DIR: path.join(tempRoot, 'app') });
  const app = await reply(appChild, 'ready', 120_000);

  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    storage: app.kind === 'postgres' ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'PGlite (embedded, temporary directory)',
  };
  console.log(`machine: ${machine.cpus} CPUs (${machine.cpu_model}), ${machine.memory_gb} GiB, node ${machine.node}, ${machine.platform}`);
  console.log(`storage: ${machine.storage}; ${CONNECTIONS} connections, pipelining 1, ${SECONDS} s per route after a ${WARMUP_SECONDS} s warm-up\n`);

  const auth = { authorization: `Bearer ${app.apiKey}` };
  const json = { 'content-type': 'application/json' };
  const rows = [];
  const ids = baseline.ids;
  let readCounter = 0;

  rows.push(
    await measure('baseline read (PK SELECT)', 'read', baseline.url, {
      method: 'GET',
      path: `/read/${ids[0]}`,
      setupRequest: (request) => ({ ...request, path: `/read/${ids[(readCounter += 1) % ids.length]}` }),
    }),
  );
  rows.push(await measure('baseline write (INSERT in tx)', 'write', baseline.url, { method: 'POST', path: '/write', headers: json, body: JSON.stringify(app.invoiceBody) }));
  // Other processes may share the CPUs: each route's ratio is taken against its
  // baseline measured again just before it, so that drifting load skews both alike.
  const baselineRequests = {
    read: { method: 'GET', path: `/read/${ids[0]}`, setupRequest: (request) => ({ ...request, path: `/read/${ids[(readCounter += 1) % ids.length]}` }) },
    write: { method: 'POST', path: '/write', headers: json, body: JSON.stringify(app.invoiceBody) },
  };
  const paired = async (route, kind, request) => {
    const before = await measure(`baseline ${kind} (paired)`, kind, baseline.url, baselineRequests[kind]);
    return { ...(await measure(route, kind, app.url, request)), paired_baseline_rps: before.requests_per_second };
  };
  rows.push(await measure('GET /networks', 'read', app.url, { method: 'GET', path: '/api/v1/networks' }));
  rows.push(await paired('GET /me (API key)', 'read', { method: 'GET', path: '/api/v1/me', headers: auth }));

  let idempotencyCounter = 0;
  rows.push(
    await paired('POST /shops/:id/invoices', 'write', {
      method: 'POST',
      path: `/api/v1/shops/${app.shopId}/invoices`,
      headers: { ...auth, ...json },
      body: JSON.stringify(app.invoiceBody),
      // A unique Idempotency-Key per request, or every request after the first would be a stored replay.
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${(idempotencyCounter += 1)}` } }),
    }),
  );

  const checkoutPath = `/api/v1/checkout/${encodeURIComponent(app.publicId ?? 'missing')}`;
  const probe = app.publicId === null ? { status: 0 } : await fetch(`${app.url}${checkoutPath}`).then((response) => ({ status: response.status }));
  if (probe.status === 200) {
    rows.push(await paired('GET /checkout/:public_id', 'read', { method: 'GET', path: checkoutPath }));
  } else {
    rows.push(skipped('GET /checkout/:public_id', 'read', probe.status === 404 ? 'skipped: route missing' : `skipped: answered ${probe.status}`));
  }

  const baselines = { read: rows[0].requests_per_second, write: rows[1].requests_per_second };
  for (const row of rows) {
    if (row.skipped !== undefined) continue;
    row.ratio = row.baseline_of === undefined ? round(row.requests_per_second / (row.paired_baseline_rps ?? baselines[row.kind]), 2) : 1;
    const target = TARGETS[row.route];
    if (target !== undefined) {
      row.target = target;
      row.verdict = row.ratio >= target ? 'PASS' : 'BELOW';
    }
  }
  printTable(rows);

  const issuanceList = await listSection(appChild, app);

  console.log('\nwebhook delivery throughput');
  const webhooks = await webhookSection(appChild, app).catch((error) => ({
    skipped: `skipped: webhooks not available (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
  }));
  printWebhooks(webhooks);

  const results = {
    at: new Date().toISOString(),
    machine,
    settings: { connections: CONNECTIONS, pipelining: 1, seconds: SECONDS, warmup_seconds: WARMUP_SECONDS, events: EVENTS, list_issuances: LIST_ISSUANCES },
    routes: rows,
    issuance_list: issuanceList,
    webhooks,
  };
  fs.mkdirSync(path.join(HERE, 'results'), { recursive: true });
  fs.writeFileSync(path.join(HERE, 'results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nresults written to ${path.relative(process.cwd(), path.join(HERE, 'results', 'latest.json'))}`);
}

/** BENCH_ONLY=list: the app alone (no baseline, no webhooks), then the issuance list section. */
async function listOnly() {
  const appChild = spawn('app-server.mjs', { BENCH_APP_DIR: path.join(tempRoot, 'app') });
  const app = await reply(appChild, 'ready', 120_000);
  console.log(`storage: ${app.kind === 'postgres' ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'PGlite (embedded, temporary directory)'}; ${os.cpus().length} CPUs; node ${process.version}`);
  console.log(`${CONNECTIONS} connections, pipelining 1, ${SECONDS} s per route after a ${WARMUP_SECONDS} s warm-up`);
  await listSection(appChild, app);
}

/**
 * GET /shops/:id/issuances on a shop of BENCH_LIST_ISSUANCES issuances
 * (seeded by the app child in three INSERT … SELECT statements): the first
 * page, a page 90% deep by cursor, and filtered pages — by an indexed filter
 * (a rare status, one external_id) and by filters read along the shop's
 * order (a kind and a network). Each request is checked once before it is
 * measured, so a figure is never that of an error answer.
 */
async function listSection(appChild, app) {
  if (LIST_ISSUANCES === 0) return { skipped: 'BENCH_LIST_ISSUANCES=0' };
  console.log(`\nissuance list: seeding ${LIST_ISSUANCES} issuances in one shop`);
  const seeded = await request(appChild, { type: 'seed-list', count: LIST_ISSUANCES }, 'list-seeded', 1_800_000);
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s`);
  const headers = { authorization: `Bearer ${seeded.apiKey}` };
  const base = `/api/v1/shops/${seeded.shopId}/issuances`;
  const cases = [
    ['one by id (GET issuances/{id}, for scale)', `${base}/${seeded.oneId}`],
    ['first page (50)', base],
    ['page 90% deep (cursor, 50)', `${base}?cursor=${encodeURIComponent(seeded.deepCursor)}`],
    ['status=reconciling (indexed)', `${base}?status=reconciling`],
    ['external_id (indexed)', `${base}?external_id=${encodeURIComponent(seeded.externalId)}`],
    ['kind=deposit&chain_id=42161 (scan)', `${base}?kind=deposit&chain_id=42161`],
  ];
  // Other processes may share the CPUs: the ratio to GET /me (one precompiled read, same key) measured just before is what compares across runs.
  const reference = await measure('GET /me (same key, reference)', 'read', app.url, { method: 'GET', path: '/api/v1/me', headers });
  const rows = [{ ...reference, items: '-', ratio: 1 }];
  for (const [name, listPath] of cases) {
    const probe = await fetch(`${app.url}${listPath}`, { headers });
    const body = await probe.json();
    if (probe.status !== 200) throw new Error(`GET ${listPath} answered ${probe.status} ${JSON.stringify(body)}`);
    const row = await measure(`GET issuances: ${name}`, 'read', app.url, { method: 'GET', path: listPath, headers });
    rows.push({ ...row, items: body.data?.length ?? 1, next_page: body.next_cursor !== undefined && body.next_cursor !== null, ratio: round(row.requests_per_second / reference.requests_per_second, 2) });
  }
  const header = ['case', 'items', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs /me'];
  const lines = rows.map((row) => [row.route, String(row.items), String(row.requests_per_second), String(row.p50_ms), String(row.p99_ms), String(row.non_2xx + row.errors), row.ratio.toFixed(2)]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (line) => line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
  return { issuances: LIST_ISSUANCES, seed_seconds: seeded.seconds, cases: rows };
}

/** bench/start-stop.mjs and bench/key-revocation.mjs, each in its own process (they start servers and apps of their own). */
async function processBench() {
  if (ONLY !== 'process') console.log('\n# processes (bench/start-stop.mjs, bench/key-revocation.mjs)');
  await runScript('start-stop.mjs');
  await runScript('key-revocation.mjs');
}

/** bench/chain-watcher.mjs in its own process (it starts anvil nodes and its own storage). */
async function chainBench() {
  if (ONLY !== 'chain') console.log('\n# EVM chain (bench/chain-watcher.mjs)');
  await runScript('chain-watcher.mjs');
}

async function runScript(script) {
  const child = spawnProcess(process.execPath, [...process.execArgv, path.join(HERE, script)], { env: process.env, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise((resolve) => child.once('exit', (exitCode, signal) => resolve(exitCode ?? signal)));
  if (code !== 0) throw new Error(`bench/${script} exited with ${code}`);
}

/** One route: a warm-up run that is thrown away, then the measured run. */
async function measure(route, kind, url, request) {
  const base = { url, connections: CONNECTIONS, pipelining: 1, requests: [request] };
  await autocannon({ ...base, duration: WARMUP_SECONDS });
  const result = await autocannon({ ...base, duration: SECONDS });
  const row = {
    route,
    kind,
    requests_per_second: round(result.requests.average, 0),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  if (route.startsWith('baseline')) row.baseline_of = kind;
  return row;
}

function skipped(route, kind, reason) {
  return { route, kind, skipped: reason };
}

function printTable(rows) {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', 'vs', 'target', 'result'];
  const measured = rows.filter((row) => row.skipped === undefined);
  const lines = measured.map((row) => [
    row.route,
    String(row.requests_per_second),
    String(row.p50_ms),
    String(row.p99_ms),
    String(row.non_2xx + row.errors),
    row.ratio.toFixed(2),
    row.baseline_of === undefined ? `${row.kind} baseline${row.paired_baseline_rps === undefined ? '' : ` (${row.paired_baseline_rps}/s just before)`}` : '-',
    row.target === undefined ? '-' : `>= ${row.target}`,
    row.verdict ?? '-',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (column === 0 ? row.route.length : 0)), ...lines.map((line) => line[column].length)));
  const format = (line) => line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) {
    console.log(row.skipped === undefined ? format(lines[measured.indexOf(row)]) : `${row.route.padEnd(widths[0])}  ${row.skipped}`);
  }
  for (const row of measured.filter((candidate) => candidate.non_2xx + candidate.errors > 0)) {
    console.log(`note: ${row.route} had ${row.non_2xx} non-2xx answers and ${row.errors} errors; its figures are not trustworthy`);
  }
}

/**
 * N events written through the outbox in transactions of 100 while the app's
 * jobs run; a loopback receiver answers 200 and notes when each event arrives.
 * Rate: unique events received / (last receipt − first commit). Latency:
 * receipt − the envelope's created_at (set inside the writing transaction).
 */
async function webhookSection(appChild, app) {
  const receiver = await startReceiver();
  try {
    const started = await request(appChild, { type: 'start-jobs' }, 'jobs-started', 600_000);
    const registration = await fetch(`${started.url}/api/v1/shops/${app.shopId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-webhook-${process.pid}` },
      body: JSON.stringify({ url: `${receiver.url}/hook`, filters: ['invoice'] }),
    });
    if (registration.status !== 201) throw new Error(`POST /shops/:id/webhooks answered ${registration.status} ${await registration.text()}`);

    const allReceived = receiver.waitFor(EVENTS, 60_000 + EVENTS * 20);
    const written = await request(appChild, { type: 'write-events', count: EVENTS, batch: EVENT_BATCH, writers: EVENT_WRITERS }, 'events-written', 600_000);
    const complete = await allReceived;
    const receipts = [...receiver.firstReceipts.values()];
    const lastReceipt = Math.max(...receipts.map((receipt) => receipt.at));
    const latencies = receipts.map((receipt) => receipt.at - receipt.createdAt).sort((left, right) => left - right);
    const seconds = (lastReceipt - written.firstCommitAt) / 1000;
    const result = {
      events: EVENTS,
      received: receipts.length,
      complete,
      duplicates: receiver.total - receipts.length,
      write_seconds: round((written.lastCommitAt - written.firstCommitAt) / 1000, 2),
      deliveries_per_second: round(receipts.length / seconds, 0),
      p50_ms: percentile(latencies, 0.5),
      p99_ms: percentile(latencies, 0.99),
      max_ms: latencies.at(-1),
      target: WEBHOOK_TARGET,
    };
    result.verdict = complete && result.deliveries_per_second >= WEBHOOK_TARGET.deliveriesPerSecond && result.p99_ms < WEBHOOK_TARGET.p99Ms ? 'PASS' : 'BELOW';
    return result;
  } finally {
    await receiver.close();
  }
}

function printWebhooks(result) {
  if (result.skipped !== undefined) {
    console.log(result.skipped);
    return;
  }
  console.log(
    `${result.received}/${result.events} events received${result.complete ? '' : ' (INCOMPLETE: timed out)'}, ${result.duplicates} duplicate deliveries; written in ${result.write_seconds} s`,
  );
  console.log(
    `${result.deliveries_per_second} deliveries/s, commit→receipt p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, max ${result.max_ms} ms ` +
      `(target >= ${WEBHOOK_TARGET.deliveriesPerSecond}/s, p99 < ${WEBHOOK_TARGET.p99Ms} ms): ${result.verdict}`,
  );
}

/** A node:http receiver on loopback that answers 200 and records each event's first arrival. */
async function startReceiver() {
  const firstReceipts = new Map();
  let total = 0;
  let waiter;
  const server = http.createServer((incoming, outgoing) => {
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      const at = Date.now();
      outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      total += 1;
      let envelope;
      try {
        envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return;
      }
      if (typeof envelope?.id !== 'string' || firstReceipts.has(envelope.id)) return;
      firstReceipts.set(envelope.id, { at, createdAt: Date.parse(envelope.created_at) });
      if (waiter !== undefined && firstReceipts.size >= waiter.count) waiter.done(true);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    firstReceipts,
    get total() {
      return total;
    },
    waitFor(count, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        waiter = {
          count,
          done: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
        };
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spawn(script, env) {
  const child = fork(path.join(HERE, script), [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  return child;
}

/** The child's next message of `type`; rejects on its error message, on exit or after `timeoutMs`. */
function reply(child, type, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(reject, new Error(`no '${type}' from ${child.spawnargs.at(-1)} within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message) => {
      if (message?.type === type) finish(resolve, message);
      else if (message?.type === 'error') finish(reject, new Error(message.message));
    };
    const onExit = (code) => finish(reject, new Error(`${child.spawnargs.at(-1)} exited with ${code} before '${type}'`));
    const finish = (settle, value) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle(value);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function request(child, message, type, timeoutMs) {
  const answer = reply(child, type, timeoutMs);
  child.send(message);
  return answer;
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (child.connected) child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function nonNegativeNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`${name} must be a number >= 0, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got "${raw}"`);
    process.exit(2);
  }
  return value;
}
