/* global process, console, setTimeout, fetch, performance, URL, Buffer */
// The EVM chain's figures (issue 9, Deliver 8), with the built code in dist/
// (`npm run build` first; `npm run bench` runs this after the HTTP benches, and
// `BENCH_ONLY=chain npm run bench` alone) against a real anvil node:
//   1. catch-up throughput: BENCH_WATCHER_TRANSFERS (10,000) transfers to BENCH_WATCHER_ADDRESSES
//      (as many) watched addresses of BENCH_WATCHER_KIND (invoice; or deposit), round-robin, at
//      most BENCH_WATCHER_MINTS_PER_BLOCK (2,000) per block, already mined and 2 blocks deep,
//      credited per second from a cold start;
//   2. detection latency: 1-second blocks, depth 2, BENCH_WATCHER_PAYMENTS (200) payments;
//      from the moment the payment's block is first served by the node to the signed
//      `transfer.confirmed` webhook received by a loopback receiver (the watcher and the
//      delivery worker running as in `serve`), p50 / p99; also to `transfer.confirmed`
//      recorded (transfers.confirmed_at). Target p99 ≤ depth × block time + 1.5 s;
//   3. sweep gas: one invoice sweep (the first, deploying its forwarder), a deposit's first
//      and next sweeps, and a `sweepBatch` of 10 invoice sweeps, per sweep. Worst case for
//      the merchant (a recipient holding no tokens yet); the fee wallet already holds some.
// Storage: BENCH_DATABASE_URL (PostgreSQL; a scratch database is created and dropped) or
// embedded PGlite in a temporary directory. BENCH_WATCHER_LEDGER_WORKERS (8 on PostgreSQL,
// 1 on PGlite) sets the watcher's concurrent ledger transactions. Figures are reported, never
// asserted. BENCH_WATCHER_ONLY=catchup runs the first part alone; BENCH_WATCHER_LEDGER_BATCH sets the
// transfers told to the ledger per transaction (the watcher's default, 200, otherwise).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer as httpServer } from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestClient, encodeFunctionData, getAddress, http, publicActions, walletActions, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import {
  deployContracts,
  deployTestStablecoin,
  depositForwarderFactoryAbi,
  invoiceForwarderFactoryAbi,
  issuanceTermsId,
  predictForwarderAddress,
  testStablecoinAbi,
} from '../dist/chains/evm/contracts/index.js';
import { listWatchedAddresses } from '../dist/allocation/index.js';
import { EvmWatcherJob } from '../dist/chains/evm/watcher/index.js';
import { recordTransfers } from '../dist/issuances/index.js';
import { ledgerPorts } from '../dist/ledger-ports.js';
import { systemClock } from '../dist/platform/clock.js';
import { newId, SecretBox } from '../dist/platform/crypto.js';
import { openEmbedded, openPostgres } from '../dist/platform/database/database.js';
import { EmbeddedMaintenanceJob } from '../dist/platform/database/embedded-maintenance.js';
import { migrate } from '../dist/platform/database/migrate.js';
import { startJobs } from '../dist/platform/jobs.js';
import { DeliverWebhooksJob } from '../dist/webhook-delivery/index.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ANVIL_BIN = path.resolve(HERE, '../node_modules/.bin/anvil');
/** anvil's first default account: a public test key, unlocked on the node. */
const MINTER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const MINTER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** anvil's fifth default account, as the relayer that sends sweeps. */
const RELAYER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const TRANSFERS = Math.round(positiveNumber('BENCH_WATCHER_TRANSFERS', 10_000));
const PAYMENTS = Math.round(positiveNumber('BENCH_WATCHER_PAYMENTS', 200));
/** Watched addresses in the catch-up part (BENCH_WATCHER_ADDRESSES, default one per transfer); transfers go round-robin over them. */
const ADDRESSES = Math.round(positiveNumber('BENCH_WATCHER_ADDRESSES', TRANSFERS));
/**
 * What the catch-up's addresses belong to (BENCH_WATCHER_KIND): `invoice` (1 USDC each, funded by
 * its first transfer) or `deposit` (a sweep threshold of 5 USDC: several transfers per address,
 * as deposits receive them).
 */
const KIND = process.env.BENCH_WATCHER_KIND === 'deposit' ? 'deposit' : 'invoice';
/** Mints per seeded block in the catch-up part (BENCH_WATCHER_MINTS_PER_BLOCK). */
const MINTS_PER_BLOCK = Math.round(positiveNumber('BENCH_WATCHER_MINTS_PER_BLOCK', 2_000));
const DEPTH = 2;
const silent = { warn: () => undefined };
let rpcId = 0;

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-bench-watcher-'));
const cleanups = [];
try {
  console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}`);
  await catchUpThroughput();
  if (process.env.BENCH_WATCHER_ONLY !== 'catchup') {
    await detectionLatency();
    await sweepGas();
  }
} catch (error) {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  fs.rmSync(tempRoot, { recursive: true, force: true });
}

async function catchUpThroughput() {
  // Room for MINTS_PER_BLOCK mints at their 100,000 gas limit each.
  const node = await startAnvil(['--gas-limit', String(Math.max(100_000_000, MINTS_PER_BLOCK * 100_000))]);
  const database = await openDatabase('catchup');
  // As `ivory serve` runs it on the embedded backend (decision 0040): PGlite analyzes nothing by itself.
  const maintenanceLog = { error: (details, message) => console.error(message, details), debug: (details) => process.env.BENCH_VERBOSE && console.log('maintenance', details) };
  const maintenance = database.kind === 'embedded' ? startJobs([new EmbeddedMaintenanceJob({ db: database.db, log: maintenanceLog })], maintenanceLog) : null;
  const workers = Math.round(positiveNumber('BENCH_WATCHER_LEDGER_WORKERS', database.kind === 'postgres' ? 8 : 1));
  console.log(`\n## catch-up: ${TRANSFERS} transfers to ${ADDRESSES} watched ${KIND} addresses (${storageName(database)}, ${workers} ledger worker(s))`);
  const token = await deployTestStablecoin({ rpcUrl: node.rpcUrl, privateKey: MINTER_KEY });
  const startBlock = await rpc(node.rpcUrl, 'eth_blockNumber');
  const shop = await seedShop(database.db);
  const watched = await seedIssuances(database.db, shop, token, ADDRESSES, KIND);
  const addresses = Array.from({ length: TRANSFERS }, (_, index) => watched[index % watched.length]);

  let seeded = Date.now();
  await rpc(node.rpcUrl, 'evm_setAutomine', [false]);
  let nonce = Number(await rpc(node.rpcUrl, 'eth_getTransactionCount', [MINTER, 'pending']));
  // At most MINTS_PER_BLOCK mints per block, mined as soon as they are in the pool: a block's
  // logs stay well under the watcher's 10 MiB answer bound (one block cannot be split), as on a
  // gas-limited chain, and the node's pool never holds more than one block's worth (a pool of
  // tens of thousands made seeding slow: 394 s for 50,000 in one block).
  for (let block = 0; block < addresses.length; block += MINTS_PER_BLOCK) {
    const inBlock = addresses.slice(block, block + MINTS_PER_BLOCK);
    for (let start = 0; start < inBlock.length; start += 500) {
      const calls = inBlock.slice(start, start + 500).map((to) => ({
        method: 'eth_sendTransaction',
        params: [{ from: MINTER, to: token, nonce: `0x${(nonce++).toString(16)}`, gas: '0x186a0', data: mintData(to, 1_000_000n) }],
      }));
      await rpcBatch(node.rpcUrl, calls);
    }
    await rpc(node.rpcUrl, 'evm_mine');
  }
  while (Number((await rpc(node.rpcUrl, 'txpool_status')).pending) > 0) await rpc(node.rpcUrl, 'evm_mine');
  await rpc(node.rpcUrl, 'evm_setAutomine', [true]);
  await rpc(node.rpcUrl, 'anvil_mine', [`0x${DEPTH.toString(16)}`]);
  const head = BigInt(await rpc(node.rpcUrl, 'eth_blockNumber'));
  const blocks = head - BigInt(DEPTH) - BigInt(startBlock);
  console.log(`seeded: ${TRANSFERS} mints in ${blocks} blocks up to block ${head - BigInt(DEPTH)}, head ${head}, in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
  console.log(`load average before catch-up: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);

  const ledger = ledgerOver();
  const job = new EvmWatcherJob({
    db: database.db,
    clock: systemClock,
    network: network(node.rpcUrl, token, BigInt(startBlock) + 1n, { maxBlockRange: 2_000, pollIntervalMs: 1_000 }),
    ledger,
    log: silent,
    options: { ledgerWorkers: workers, ...(process.env.BENCH_WATCHER_LEDGER_BATCH ? { ledgerBatchSize: Number(process.env.BENCH_WATCHER_LEDGER_BATCH) } : {}) },
  });
  const began = performance.now();
  let passes = 0;
  while ((await job.run()) > 0) passes += 1;
  const seconds = (performance.now() - began) / 1000;
  await maintenance?.stop();
  console.log(`load average after catch-up: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
  const credited = await database.db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('chain_id', '=', 31337)
    .where('status', '=', 'confirmed')
    .executeTakeFirstOrThrow();
  const events = await database.db.selectFrom('events').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
  seeded = Number(credited.count);
  console.log(
    `caught up in ${seconds.toFixed(2)} s over ${passes} passes: ${seeded} transfers confirmed and credited, ${events.count} events — ` +
      `${Math.round(seeded / seconds)} credited/s (target ${database.kind === 'postgres' ? '≥ 2,000/s on PostgreSQL' : '≥ 1,000/s on PGlite'})`,
  );
  const ledgerSeconds = (ledger.stats.lastEnd - ledger.stats.firstStart) / 1000;
  console.log(
    `  of which: scan (eth_getLogs, matching, one commit per range) ${(seconds - ledgerSeconds).toFixed(2)} s; ` +
      `ledger ${ledgerSeconds.toFixed(2)} s for ${ledger.stats.calls} recordTransfers calls of ${ledger.stats.steps} steps (observed + confirmed per transfer)`,
  );
  if (seeded !== TRANSFERS) console.log(`!! expected ${TRANSFERS} credited transfers, found ${seeded}`);
}

async function detectionLatency() {
  const node = await startAnvil(['--block-time', '1']);
  const database = await openDatabase('latency');
  console.log(`\n## detection latency: ${PAYMENTS} payments, 1-second blocks, depth ${DEPTH} (${storageName(database)})`);
  const token = await deployTestStablecoin({ rpcUrl: node.rpcUrl, privateKey: MINTER_KEY });
  const startBlock = BigInt(await rpc(node.rpcUrl, 'eth_blockNumber'));
  const shop = await seedShop(database.db);
  const addresses = await seedIssuances(database.db, shop, token, PAYMENTS);

  // When each block was first served: the "mined" instant, to the node's poll granularity (10 ms).
  const firstSeen = new Map();
  let watching = true;
  const blockWatch = (async () => {
    while (watching) {
      const number = BigInt(await rpc(node.rpcUrl, 'eth_blockNumber'));
      if (!firstSeen.has(number)) firstSeen.set(number, Date.now());
      await sleep(10);
    }
  })();
  // A merchant's receiver of transfer.confirmed webhooks, on loopback: when each arrives, by tx hash.
  const receivedAt = new Map();
  const receiver = httpServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      try {
        const envelope = JSON.parse(body);
        if (envelope.type === 'transfer.confirmed') {
          const hash = String(envelope.data?.tx_hash ?? '').toLowerCase();
          if (hash !== '' && !receivedAt.has(hash)) receivedAt.set(hash, Date.now());
        }
      } catch {
        // not ours
      }
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => receiver.close(() => resolve())));
  const secrets = new SecretBox(Buffer.alloc(32, 7));
  await database.db
    .insertInto('webhook_endpoints')
    .values({
      id: newId(),
      shop_id: shop.id,
      url: `http://127.0.0.1:${receiver.address().port}/hooks`,
      filters: JSON.stringify(['transfer.confirmed']),
      secret_sealed: secrets.seal(`whsec_${Buffer.alloc(24, 1).toString('base64')}`),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      deleted_at: null,
    })
    .execute();
  const job = new EvmWatcherJob({
    db: database.db,
    clock: systemClock,
    network: network(node.rpcUrl, token, startBlock, { maxBlockRange: 2_000, pollIntervalMs: 100 }),
    ledger: ledgerOver(),
    log: silent,
  });
  const quietLog = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quietLog };
  const delivery = new DeliverWebhooksJob({ db: database.db, clock: systemClock, secrets, log: quietLog, brand: 'Ivory', publicUrl: 'http://localhost', allowPrivate: true });
  const runner = startJobs([job, delivery], { error: (details, message) => console.error(message, details) });
  cleanups.push(() => runner.stop());

  // About ten payments per block, spread over the block interval.
  const sent = [];
  let nonce = Number(await rpc(node.rpcUrl, 'eth_getTransactionCount', [MINTER, 'pending']));
  for (const to of addresses) {
    sent.push(
      await rpc(node.rpcUrl, 'eth_sendTransaction', [{ from: MINTER, to: token, nonce: `0x${(nonce++).toString(16)}`, gas: '0x186a0', data: mintData(to, 1_000_000n) }]),
    );
    await sleep(100);
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const done = await database.db
      .selectFrom('transfers')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('status', '=', 'confirmed')
      .executeTakeFirstOrThrow();
    if ((Number(done.count) >= PAYMENTS && receivedAt.size >= PAYMENTS) || Date.now() > deadline) break;
    await sleep(100);
  }
  watching = false;
  await blockWatch;
  await runner.stop();

  const confirmed = await database.db.selectFrom('transfers').select(['tx_hash', 'confirmed_at']).where('status', '=', 'confirmed').execute();
  const confirmedAt = new Map(confirmed.map((row) => [row.tx_hash.toLowerCase(), row.confirmed_at]));
  const latencies = [];
  const webhookLatencies = [];
  for (const hash of sent) {
    const receipt = await rpc(node.rpcUrl, 'eth_getTransactionReceipt', [hash]);
    const at = confirmedAt.get(hash.toLowerCase());
    const seen = receipt === null ? undefined : firstSeen.get(BigInt(receipt.blockNumber));
    if (at === undefined || at === null || seen === undefined) continue;
    latencies.push(new Date(at).getTime() - seen);
    const delivered = receivedAt.get(hash.toLowerCase());
    if (delivered !== undefined) webhookLatencies.push(delivered - seen);
  }
  const summary = (values) => {
    values.sort((a, b) => a - b);
    const quantile = (q) => values[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)];
    return `p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${values[values.length - 1]} ms`;
  };
  const target = `(target p99 ≤ ${DEPTH} × 1 s + 1.5 s = ${DEPTH * 1000 + 1500} ms)`;
  console.log(`${webhookLatencies.length}/${PAYMENTS} webhooks received; block first served → transfer.confirmed webhook received: ${summary(webhookLatencies)} ${target}`);
  console.log(`${latencies.length}/${PAYMENTS} payments confirmed; block first served → transfer.confirmed recorded: ${summary(latencies)}`);
}

async function sweepGas() {
  const node = await startAnvil([]); // a block per transaction: gas does not depend on timing
  console.log('\n## sweep gas (6-decimal token, fees 50 bps / min 0.1 / max 5 tokens)');
  const client = createTestClient({ chain: { ...foundry, rpcUrls: { default: { http: [node.rpcUrl] } } }, mode: 'anvil', transport: http(node.rpcUrl), pollingInterval: 50 })
    .extend(publicActions)
    .extend(walletActions);
  const relayer = privateKeyToAccount(RELAYER_KEY);
  const token = await deployTestStablecoin({ rpcUrl: node.rpcUrl, privateKey: MINTER_KEY });
  const { mainFactory, invoiceFactory, feeWallet } = await deployContracts({ rpcUrl: node.rpcUrl, privateKey: MINTER_KEY, feeWallet: freshAddress() });
  const gasOf = async (request) => {
    const receipt = await client.waitForTransactionReceipt({ hash: await request });
    if (receipt.status !== 'success') throw new Error(`sweep ${receipt.transactionHash} reverted`);
    return receipt.gasUsed;
  };
  const mint = (to, amount) => gasOf(client.writeContract({ account: MINTER, address: token, abi: testStablecoinAbi, functionName: 'mint', args: [to, amount] }));
  const terms = (amount) => ({
    id: issuanceTermsId(newId()),
    token,
    recipient: freshAddress(),
    feeWallet,
    delegate: zeroAddress,
    amount,
    feeMin: 100_000n,
    feeMax: 5_000_000n,
    feeBps: 50,
  });
  const sweep = (abi, factory, t) => gasOf(client.writeContract({ account: relayer, address: factory, abi, functionName: 'sweep', args: [t] }));
  await mint(feeWallet, 1_000_000n); // as after the operator's first payout

  const invoice = terms(100_000_000n);
  await mint(predictForwarderAddress(invoiceFactory, invoice), invoice.amount);
  const single = await sweep(invoiceForwarderFactoryAbi, invoiceFactory, invoice);

  const deposit = terms(5_000_000n);
  await mint(predictForwarderAddress(mainFactory, deposit), 100_000_000n);
  const depositFirst = await sweep(depositForwarderFactoryAbi, mainFactory, deposit);
  await mint(predictForwarderAddress(mainFactory, deposit), 100_000_000n);
  const depositNext = await sweep(depositForwarderFactoryAbi, mainFactory, deposit);

  const batch = Array.from({ length: 10 }, () => terms(100_000_000n));
  for (const t of batch) await mint(predictForwarderAddress(invoiceFactory, t), t.amount);
  const batched = await gasOf(client.writeContract({ account: relayer, address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'sweepBatch', args: [batch] }));

  console.log(`invoice sweep, deploying its forwarder: ${single} gas`);
  console.log(`deposit sweep: ${depositFirst} gas the first time (deploying its forwarder), ${depositNext} gas afterwards`);
  console.log(`sweepBatch of ${batch.length} invoice sweeps: ${batched} gas, ${batched / BigInt(batch.length)} per sweep`);
}

function freshAddress() {
  return privateKeyToAccount(generatePrivateKey()).address;
}

// ── the ledger port, wired as the composition root will wire it ────────────
function ledgerOver(stats = { calls: 0, steps: 0, firstStart: 0, lastEnd: 0 }) {
  return {
    stats,
    recordTransfers: async (trx, now, transfers) => {
      const started = performance.now();
      if (stats.calls === 0) stats.firstStart = started;
      stats.calls += 1;
      stats.steps += transfers.length;
      // The app's ledger ports: payouts, and events fanned out to webhook deliveries in their transaction.
      await recordTransfers(trx, { now, ledger: ledgerPorts }, transfers);
      stats.lastEnd = performance.now();
    },
    watchedAddresses: listWatchedAddresses,
  };
}

function network(rpcUrl, token, startBlock, tuning) {
  return {
    chainId: 31337,
    rpcUrl,
    confirmations: DEPTH,
    mainFactory: zeroAddress,
    invoiceFactory: zeroAddress,
    startBlock,
    feeWallet: '0x000000000000000000000000000000000000fEE5',
    tokens: [{ address: token, symbol: 'USDC', decimals: 6, minimumSweep: 1_000_000n }],
    useFinalizedTag: false,
    ...tuning,
  };
}

// ── storage and seeding ─────────────────────────────────────────────────────
async function openDatabase(label) {
  const url = process.env.BENCH_DATABASE_URL;
  if (url === undefined || url === '') {
    const handle = await openEmbedded(path.join(tempRoot, label));
    cleanups.push(() => handle.close());
    await migrate(handle.db);
    return handle;
  }
  const name = `ivory_bench_watcher_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  const handle = await openPostgres(parsed.toString(), 10);
  cleanups.push(async () => {
    await handle.close();
    const cleanup = new pg.Client({ connectionString: url });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${name} with (force)`);
    await cleanup.end();
  });
  await migrate(handle.db);
  return handle;
}

function storageName(database) {
  return database.kind === 'postgres' ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'PGlite (embedded, temporary directory)';
}

async function seedShop(db) {
  const merchantId = newId();
  const shopId = newId();
  await db.insertInto('merchants').values({ id: merchantId, name: 'Bench merchant', deposit_address_limits: null }).execute();
  await db
    .insertInto('shops')
    .values({
      id: shopId,
      merchant_id: merchantId,
      name: 'Bench shop',
      sandbox: false,
      recipient: '0x000000000000000000000000000000000000dEaD',
      delegate: null,
      solana_recipient: null,
      tron_recipient: null,
      branding_name: null,
      branding_logo_asset_id: null,
    })
    .execute();
  return { id: shopId, merchantId };
}

/** `count` open live invoices of 1 USDC (or deposits with a 5 USDC sweep threshold) at distinct addresses; returns the addresses. */
async function seedIssuances(db, shop, token, count, kind = 'invoice') {
  const now = new Date();
  const addresses = [];
  for (let start = 0; start < count; start += 1_000) {
    const rows = [];
    for (let index = start; index < Math.min(count, start + 1_000); index += 1) {
      const address = getAddress(`0x${'be'.repeat(10)}${(index + 1).toString(16).padStart(20, '0')}`);
      addresses.push(address);
      rows.push({
        id: newId(),
        public_id: `${kind === 'invoice' ? 'inv' : 'dep'}_bench_${index}_${process.pid}`,
        shop_id: shop.id,
        merchant_id: shop.merchantId,
        group_id: null,
        group_position: null,
        kind,
        sandbox: false,
        chain_id: 31337,
        family: 'evm',
        token,
        token_decimals: 6,
        amount: kind === 'invoice' ? '1000000' : null,
        status: 'open',
        address,
        next_allocation_at: null,
        recipient: '0x000000000000000000000000000000000000dEaD',
        delegate: null,
        payout_target: 'address',
        fee_bps: 50,
        fee_minimum: '0',
        fee_maximum: '5000000000000000000',
        sweep_threshold: kind === 'invoice' ? null : '5000000',
        external_id: null,
        description: null,
        return_url: null,
        expires_at: null,
        cancelled_at: null,
        cancel_reason: null,
        disabled_at: null,
        funded_at: null,
        settled_at: null,
        created_at: now,
        updated_at: now,
      });
    }
    await db.insertInto('issuances').values(rows).execute();
  }
  return addresses;
}

// ── anvil and JSON-RPC ──────────────────────────────────────────────────────
async function startAnvil(extra) {
  const port = await freePort();
  const child = spawn(ANVIL_BIN, ['--port', String(port), '--host', '127.0.0.1', '--chain-id', '31337', '--silent', ...extra], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(3_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await rpc(rpcUrl, 'eth_chainId');
      return { rpcUrl };
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

async function rpc(url, method, params = []) {
  const [answer] = await rpcBatch(url, [{ method, params }]);
  return answer;
}

async function rpcBatch(url, calls) {
  const body = calls.map((call) => ({ jsonrpc: '2.0', id: (rpcId += 1), method: call.method, params: call.params ?? [] }));
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answers = await response.json();
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  return body.map((request) => {
    const answer = byId.get(request.id);
    if (answer?.error) throw new Error(`${request.method}: ${answer.error.message}`);
    return answer?.result;
  });
}

function mintData(to, amount) {
  return encodeFunctionData({ abi: testStablecoinAbi, functionName: 'mint', args: [to, amount] });
}

async function freePort() {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function positiveNumber(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
