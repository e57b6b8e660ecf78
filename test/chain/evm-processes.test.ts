import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { decodeFunctionData, erc20Abi, getAddress, maxUint256, keccak256, parseAbi, parseEventLogs, parseTransaction, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deployContracts, deployTestStablecoin, invoiceForwarderFactoryAbi, type DeployedContracts } from '../../src/chains/evm/contracts/index.js';
import type { EvmTables } from '../../src/chains/evm/relayer/relayer.schema.js';
import { openEmbedded, openPostgres, type DatabaseHandle } from '../../src/platform/database/database.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { withDatabase } from '../global-setup.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';
import { deployBatcher } from '../support/batcher.js';
import { startFaultyRpc, type FaultyRpc } from '../support/faulty-rpc.js';
import { createApiKey, createMerchant, createShop, createUser } from '../support/factories.js';
import { freePort, waitForHealthz } from '../support/local-server.js';

// Issue 9 "Tests", with REAL processes: the built CLI (`node dist/cli/main.js serve`), spawned
// as an operator would, on a real anvil node and a real database.
// 1. Two worker processes (and an API process) on one PostgreSQL: no double work.
// 2. A process killed mid-payout (SIGKILL), then restarted: exactly one sweep on chain.
//    - after the commit, before the broadcast: the node is reached through a JSON-RPC proxy
//      that holds `eth_sendRawTransaction` (never answers) while the process is killed;
//    - after signing, before the commit (PostgreSQL only): the test holds a table lock that
//      blocks the INSERT of the signed transaction, and kills the process while it waits.
// No test seam in src/: the processes are the shipped program.

const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/cli/main.js');
const SECRET_KEY = randomBytes(32).toString('hex');
const ADMIN_TOKEN = 'process-test-admin-token-0123456789';
const DEPLOYER_KEY = ANVIL_KEYS[0];
const FEE_WALLET = privateKeyToAccount(ANVIL_KEYS[1]).address;
const PAYER = privateKeyToAccount(ANVIL_KEYS[4]);
const CONFIRMATIONS = 2;
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

const databaseUrl = process.env.TEST_DATABASE_URL;
const onPostgres = databaseUrl !== undefined && databaseUrl !== '';

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));
/** LEDGER "Fees" with this catalogue's terms (50 bps, min 0.1, max 5 tokens), in 6-decimal units. */
const fee = (amount: bigint) => {
  const raw = (amount * 50n) / 10_000n;
  return raw < 100_000n ? 100_000n : raw > 5_000_000n ? 5_000_000n : raw;
};
const newRecipient = () => privateKeyToAccount(generatePrivateKey()).address;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ── processes ────────────────────────────────────────────────────────────────

interface Ivory {
  readonly label: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

const running = new Set<Ivory>();

function spawnIvory(label: string, env: Record<string, string>, role: 'all' | 'api' | 'worker'): Ivory {
  const child = spawn(process.execPath, [main, 'serve', '--role', role], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      SECRET_KEY,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_WRITES_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ivory: Ivory = { label, child, exited, output: () => output };
  running.add(ivory);
  void exited.then(() => running.delete(ivory));
  return ivory;
}

/** SIGKILL: the process dies where it stands (no handler, no cleanup). */
async function kill(ivory: Ivory): Promise<void> {
  if (ivory.child.exitCode === null && ivory.child.signalCode === null) ivory.child.kill('SIGKILL');
  await ivory.exited;
}

/** SIGTERM, then SIGKILL after 5 s. */
async function stop(ivory: Ivory): Promise<void> {
  if (ivory.child.exitCode !== null || ivory.child.signalCode !== null) return;
  ivory.child.kill('SIGTERM');
  const done = await Promise.race([ivory.exited.then(() => true), sleep(5_000).then(() => false)]);
  if (!done) await kill(ivory);
}

async function stopAll(): Promise<void> {
  await Promise.all([...running].map((ivory) => stop(ivory)));
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, options: { timeoutMs?: number; tickMs?: number; each?: () => Promise<void>; processes?: readonly Ivory[] } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    for (const ivory of options.processes ?? []) {
      if (ivory.child.exitCode !== null) throw new Error(`${ivory.label} exited with ${ivory.child.exitCode} while waiting for ${what}:\n${ivory.output()}`);
    }
    if (Date.now() > deadline) {
      const logs = (options.processes ?? []).map((ivory) => `--- ${ivory.label}:\n${ivory.output().slice(-4_000)}`).join('\n');
      throw new Error(`timed out waiting for ${what}\n${logs}`);
    }
    await options.each?.();
    await sleep(options.tickMs ?? 100);
  }
}

async function waitHealthy(baseUrl: string, ivory: Ivory): Promise<void> {
  await waitForHealthz(baseUrl, { timeoutMs: 30_000, running: () => ivory.child.exitCode === null, output: () => `--- ${ivory.label}:\n${ivory.output()}` });
}

// ── chain ────────────────────────────────────────────────────────────────────

interface Chain {
  readonly anvil: Anvil;
  readonly token: Address;
  readonly contracts: DeployedContracts;
}

async function startChain(): Promise<Chain> {
  const anvil = await startAnvil();
  const token = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: DEPLOYER_KEY });
  const contracts = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: DEPLOYER_KEY, feeWallet: FEE_WALLET });
  return { anvil, token, contracts };
}

function writeCatalogue(chain: Chain, rpcUrl: string, tuning: Record<string, unknown> = {}): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-processes-')), 'networks.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      networks: [
        {
          chain_id: chain.anvil.chainId,
          name: 'Anvil',
          family: 'evm',
          native_symbol: 'ETH',
          explorer_url: 'http://localhost',
          main_factory: chain.contracts.mainFactory,
          invoice_factory: chain.contracts.invoiceFactory,
          start_block: chain.contracts.startBlock,
          enabled: true,
          minimum_payment: '1',
          terms: {
            invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
            deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
            sweep_threshold: '10',
            minimum_sweep: '1',
            maximum_sweep: '100000',
          },
          tokens: [{ address: chain.token, symbol: 'TUSD', decimals: 6, status: 'ready' }],
          rpc_url: rpcUrl,
          confirmations: CONFIRMATIONS,
          poll_interval_ms: 100,
          ...tuning,
        },
      ],
    }),
  );
  return file;
}

/** Mints `total` to the payer once; `pay` then transfers from it: real ERC-20 Transfers. */
async function mintToPayer(chain: Chain, total: bigint): Promise<void> {
  const client = chain.anvil.client;
  await client.waitForTransactionReceipt({
    hash: await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: chain.token, abi: mintAbi, functionName: 'mint', args: [PAYER.address, total] }),
  });
}

async function pay(chain: Chain, to: string, amount: bigint): Promise<Hex> {
  const client = chain.anvil.client;
  const hash = await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: chain.token, abi: erc20Abi, functionName: 'transfer', args: [to as Address, amount] });
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return hash;
}

async function balanceOf(chain: Chain, holder: string): Promise<bigint> {
  return chain.anvil.client.readContract({ address: chain.token, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });
}

/** Every `Swept` event of both factories, on chain. */
async function sweptLogs(chain: Chain) {
  const client = chain.anvil.client;
  const logs = await client.getLogs({
    address: [chain.contracts.mainFactory, chain.contracts.invoiceFactory],
    fromBlock: BigInt(chain.contracts.startBlock),
    toBlock: 'latest',
  });
  return parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' }).map((log) => ({
    forwarder: getAddress(log.args.forwarder),
    toRecipient: log.args.toRecipient,
    toOperator: log.args.toOperator,
    txHash: log.transactionHash,
  }));
}

// ── databases ────────────────────────────────────────────────────────────────

interface TestDatabase {
  /** DATABASE_URL or DATA_DIR for the processes. */
  readonly env: Record<string, string>;
  /** Opens the database from the test. With PGlite, only while no Ivory process runs on it. */
  open(): Promise<DatabaseHandle>;
  /** The database's name on the PostgreSQL server (undefined on PGlite). */
  readonly name?: string;
  drop(): Promise<void>;
}

/** A PostgreSQL database cloned from the run's migrated template (as test/support/database.ts does). */
async function clonedPostgres(): Promise<TestDatabase> {
  const url = databaseUrl as string;
  const template = inject('postgresTemplate');
  if (template === null) throw new Error('test/global-setup.ts did not provide a PostgreSQL template');
  const name = `ivory_t_${process.ppid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const own = withDatabase(url, name);
  return {
    env: { DATABASE_URL: own },
    name,
    open: () => openPostgres(own, 4),
    async drop() {
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** An embedded PGlite data directory, migrated (by the test, before any process starts). */
async function embeddedDataDir(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-processes-data-'));
  const handle = await openEmbedded(dataDir);
  await migrate(handle.db);
  await handle.close();
  return {
    env: { DATA_DIR: dataDir },
    open: () => openEmbedded(dataDir),
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withDb<T>(database: TestDatabase, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await database.open();
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

/** A merchant with one live shop per recipient, each with a read+write API key. */
async function liveShops(handle: DatabaseHandle, recipients: readonly Address[]) {
  const user = await createUser(handle.db);
  const merchant = await createMerchant(handle.db, user.id);
  const shops: Array<{ shopId: string; token: string; recipient: Address }> = [];
  for (const recipient of recipients) {
    const shop = await createShop(handle.db, merchant.id, { sandbox: false, recipient });
    const key = await createApiKey(handle.db, { id: shop.id, merchantId: merchant.id });
    shops.push({ shopId: shop.id, token: key.token, recipient });
  }
  return shops;
}

// ── HTTP ─────────────────────────────────────────────────────────────────────

interface IssuanceView {
  id: string;
  status: string;
  address: string | null;
  received: string;
  payout_tx_hash: string | null;
}

async function createInvoice(baseUrl: string, chain: Chain, shop: { shopId: string; token: string }, amount: bigint): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/shops/${shop.shopId}/invoices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.token}`, 'idempotency-key': randomBytes(12).toString('hex'), 'content-type': 'application/json' },
    body: JSON.stringify({ chain_id: chain.anvil.chainId, token: chain.token, amount: amount.toString() }),
  });
  const body = await response.text();
  if (response.status !== 202) throw new Error(`create invoice: ${response.status} ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}

async function readIssuance(baseUrl: string, shop: { shopId: string; token: string }, id: string): Promise<IssuanceView> {
  const response = await fetch(`${baseUrl}/api/v1/shops/${shop.shopId}/issuances/${id}`, { headers: { authorization: `Bearer ${shop.token}` } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`read issuance: ${response.status} ${body}`);
  return JSON.parse(body) as IssuanceView;
}

/** The relayer from GET /admin/v1/networks, given native coin for gas. */
async function fundRelayer(baseUrl: string, chain: Chain): Promise<Address> {
  const response = await fetch(`${baseUrl}/admin/v1/networks`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const networks = (await response.json()) as Array<{ chain_id: number; relayer_address: string }>;
  expect(response.status).toBe(200);
  const network = networks.find((entry) => entry.chain_id === chain.anvil.chainId);
  if (network === undefined) throw new Error(`no live network on the admin endpoint: ${JSON.stringify(networks)}`);
  const relayer = getAddress(network.relayer_address);
  await chain.anvil.client.setBalance({ address: relayer, value: 10n ** 19n });
  return relayer;
}

// ── a JSON-RPC proxy that can hold broadcasts ──────────────────────────────

interface RpcProxy {
  readonly url: string;
  /** Every raw transaction the processes tried to broadcast, in order, and whether it reached the node. */
  readonly broadcasts: Array<{ raw: Hex; forwarded: boolean }>;
  /** true: `eth_sendRawTransaction` is held (never answered, never forwarded); false: everything passes. */
  holdBroadcasts: boolean;
  close(): Promise<void>;
}

async function startRpcProxy(target: string): Promise<RpcProxy> {
  const held = new Set<http.ServerResponse>();
  const proxy: RpcProxy = {
    url: '',
    broadcasts: [],
    holdBroadcasts: false,
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        let calls: Array<{ method?: string; params?: unknown[] }> = [];
        try {
          const parsed = JSON.parse(body) as unknown;
          calls = (Array.isArray(parsed) ? parsed : [parsed]) as typeof calls;
        } catch {
          calls = [];
        }
        const raws = calls.filter((call) => call.method === 'eth_sendRawTransaction').map((call) => call.params?.[0] as Hex);
        const hold = proxy.holdBroadcasts && raws.length > 0;
        for (const raw of raws) proxy.broadcasts.push({ raw, forwarded: !hold });
        if (hold) {
          held.add(response);
          response.on('close', () => held.delete(response));
          return; // never answered: the process waits, and is killed meanwhile
        }
        try {
          const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(await answer.text());
        } catch (error) {
          response.writeHead(502);
          response.end(String(error));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  (proxy as { url: string }).url = `http://127.0.0.1:${address.port}`;
  return proxy;
}

// ── 1. two workers on one PostgreSQL ─────────────────────────────────────────

describe.skipIf(!onPostgres)('two worker processes on one PostgreSQL (issue 9 "Tests": no double work)', () => {
  // Skipped without TEST_DATABASE_URL: embedded PGlite lets one process open a data
  // directory (ivory.lock), so several processes need PostgreSQL.
  const INVOICES = 20;
  let chain: Chain;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let api: Ivory;
  let workers: Ivory[];
  let baseUrl: string;

  beforeAll(async () => {
    chain = await startChain();
    database = await clonedPostgres();
    handle = await database.open();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const env = { ...database.env, NETWORKS_FILE: writeCatalogue(chain, chain.anvil.rpcUrl), PUBLIC_URL: baseUrl };
    api = spawnIvory('api', { ...env, PORT: String(port) }, 'api');
    workers = [spawnIvory('worker-1', env, 'worker'), spawnIvory('worker-2', env, 'worker')];
    await waitHealthy(baseUrl, api);
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    await handle?.close();
    await database?.drop();
    await chain?.anvil.stop();
  });

  it(`${INVOICES} live invoices paid on chain are each swept exactly once, with one payout and one set of events`, async () => {
    const started = Date.now();
    const processes = [api, ...workers];
    await fundRelayer(baseUrl, chain);
    const recipients = Array.from({ length: INVOICES }, () => newRecipient());
    const shops = await liveShops(handle, recipients);
    const amounts = shops.map((_, index) => usd(10 + index * 7.25)); // fees from the minimum (0.1) up

    const ids = await Promise.all(shops.map((shop, index) => createInvoice(baseUrl, chain, shop, amounts[index] as bigint)));
    const invoices = await waitFor(
      'every invoice open with an address',
      async () => {
        const views = await Promise.all(ids.map((id, index) => readIssuance(baseUrl, shops[index] as (typeof shops)[number], id)));
        return views.every((view) => view.status === 'open' && view.address !== null) ? views : undefined;
      },
      { processes },
    );
    const feeWalletBefore = await balanceOf(chain, FEE_WALLET);
    await mintToPayer(chain, amounts.reduce((sum, amount) => sum + amount, 0n));
    const payments: Hex[] = [];
    for (const [index, invoice] of invoices.entries()) payments.push(await pay(chain, invoice.address as string, amounts[index] as bigint));

    // Blocks for depth (anvil automines only on transactions) until every invoice is settled.
    await waitFor(
      'every invoice settled',
      async () => {
        const rows = await handle.db.selectFrom('issuances').select(['status']).where('id', 'in', ids).execute();
        return rows.length === INVOICES && rows.every((row) => row.status === 'settled') ? true : undefined;
      },
      { processes, timeoutMs: 45_000, tickMs: 150, each: async () => void (await chain.anvil.client.mine({ blocks: 1 })) },
    );

    // On chain: exactly one Swept per forwarder, in the payout's transaction; each recipient got exactly amount − fee.
    const swept = await sweptLogs(chain);
    expect(swept).toHaveLength(INVOICES);
    const settled = await Promise.all(ids.map((id, index) => readIssuance(baseUrl, shops[index] as (typeof shops)[number], id)));
    for (const [index, invoice] of settled.entries()) {
      const amount = amounts[index] as bigint;
      const sweeps = swept.filter((log) => log.forwarder === getAddress(invoice.address as string));
      expect(sweeps).toHaveLength(1);
      expect(sweeps[0]?.txHash).toBe(invoice.payout_tx_hash);
      expect(sweeps[0]?.toRecipient).toBe(amount - fee(amount));
      expect(await balanceOf(chain, recipients[index] as Address)).toBe(amount - fee(amount));
      expect(await balanceOf(chain, invoice.address as string)).toBe(0n);
    }
    expect((await balanceOf(chain, FEE_WALLET)) - feeWalletBefore).toBe(amounts.reduce((sum, amount) => sum + fee(amount), 0n));

    // In the database: one payout per invoice, each the member of exactly one signed attempt (alone, or
    // in a sweepBatch with others due in the same pass: docs/decisions/0037), one transfer per payment.
    const payouts = await handle.db.selectFrom('payouts').select(['issuance_id', 'status', 'tx_hash', 'id']).where('issuance_id', 'in', ids).execute();
    expect(payouts).toHaveLength(INVOICES);
    expect(new Set(payouts.map((payout) => payout.issuance_id)).size).toBe(INVOICES);
    for (const payout of payouts) expect(payout.status).toBe('confirmed');
    const members = await handle.db
      .withTables<EvmTables>()
      .selectFrom('evm_payout_members')
      .select(['payout_id', 'nonce'])
      .where('payout_id', 'in', payouts.map((payout) => payout.id))
      .execute();
    expect(members).toHaveLength(INVOICES);
    const nonces = [...new Set(members.map((row) => String(row.nonce)))];
    const signed = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select(['nonce', 'status', 'tx_hash']).where('nonce', 'in', nonces).execute();
    expect(signed).toHaveLength(nonces.length); // one signature per attempt: no nonce signed twice, nothing replaced
    for (const payout of payouts) {
      const nonce = String(members.find((row) => row.payout_id === payout.id)?.nonce);
      expect(signed.find((row) => String(row.nonce) === nonce)).toMatchObject({ status: 'confirmed', tx_hash: payout.tx_hash });
    }
    console.warn(`[processes] ${INVOICES} payouts in ${nonces.length} sweep transactions`);
    const transfers = await handle.db.selectFrom('transfers').select(['tx_hash']).where('issuance_id', 'in', ids).execute();
    expect(transfers.map((row) => row.tx_hash).sort()).toEqual([...payments].sort());

    // Events: per invoice exactly the lifecycle, once each; one transfer.confirmed per payment.
    const events = await handle.db.selectFrom('events').select(['id', 'issuance_id', 'type', 'envelope']).where('issuance_id', 'in', ids).orderBy('sequence').execute();
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    for (const [index, id] of ids.entries()) {
      const own = events.filter((event) => event.issuance_id === id);
      expect(own.map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
      const confirmed = own.filter((event) => event.type === 'transfer.confirmed').map((event) => (JSON.parse(event.envelope) as { data: { tx_hash: string } }).data.tx_hash);
      expect(confirmed).toEqual([payments[index]]);
    }
    for (const ivory of processes) expect(ivory.child.exitCode).toBeNull();
    console.warn(`[processes] ${INVOICES} invoices through 1 api + 2 workers on PostgreSQL, paid → settled in ${Date.now() - started} ms`);
  }, 90_000);
});

// ── 2. a process killed mid-payout, then restarted ──────────────────────────

describe('a serve process killed mid-payout, then restarted (issue 9 "Tests": exactly one sweep)', () => {
  let chain: Chain;
  let proxy: RpcProxy;
  let database: TestDatabase;
  let env: Record<string, string>;
  let baseUrl: string;
  let shops: Array<{ shopId: string; token: string; recipient: Address }>;

  beforeAll(async () => {
    chain = await startChain();
    proxy = await startRpcProxy(chain.anvil.rpcUrl);
    database = onPostgres ? await clonedPostgres() : await embeddedDataDir();
    shops = await withDb(database, (handle) => liveShops(handle, [newRecipient(), newRecipient()]));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = { ...database.env, NETWORKS_FILE: writeCatalogue(chain, proxy.url), PORT: String(port), PUBLIC_URL: baseUrl };
    await mintToPayer(chain, usd(1_000));
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    await proxy?.close();
    await database?.drop();
    await chain?.anvil.stop();
  });

  /** Starts `serve` (role all) and waits until it answers. */
  async function serve(label: string): Promise<Ivory> {
    const ivory = spawnIvory(label, env, 'all');
    await waitHealthy(baseUrl, ivory);
    return ivory;
  }

  /** Creates an invoice of `amount`, waits for its address, pays it and mines the confirmation depth. */
  async function openAndPay(ivory: Ivory, shop: (typeof shops)[number], amount: bigint) {
    const id = await createInvoice(baseUrl, chain, shop, amount);
    const invoice = await waitFor(
      'the invoice open with an address',
      async () => {
        const view = await readIssuance(baseUrl, shop, id);
        return view.status === 'open' && view.address !== null ? view : undefined;
      },
      { processes: [ivory] },
    );
    await pay(chain, invoice.address as string, amount);
    await chain.anvil.client.mine({ blocks: CONFIRMATIONS });
    return { id, address: getAddress(invoice.address as string) };
  }

  async function waitSettled(ivory: Ivory, shop: (typeof shops)[number], id: string): Promise<IssuanceView> {
    return waitFor(
      'the invoice settled',
      async () => {
        const view = await readIssuance(baseUrl, shop, id);
        return view.status === 'settled' ? view : undefined;
      },
      { processes: [ivory], timeoutMs: 50_000, tickMs: 150, each: async () => void (await chain.anvil.client.mine({ blocks: 1 })) },
    );
  }

  it('killed after the commit, before the broadcast (the node never got the transaction): the restarted process broadcasts the STORED transaction; one sweep', async () => {
    const started = Date.now();
    const shop = shops[0] as (typeof shops)[number];
    const first = await serve('serve-1');
    await fundRelayer(baseUrl, chain);
    proxy.holdBroadcasts = true;
    const amount = usd(40);
    const invoice = await openAndPay(first, shop, amount);

    // The payout worker signs, stores and commits, then broadcasts: the proxy holds that call.
    const held = await waitFor('a held eth_sendRawTransaction', async () => proxy.broadcasts[0], { processes: [first], timeoutMs: 20_000 });
    await kill(first);
    const heldHash = keccak256(held.raw);
    expect(proxy.broadcasts.every((call) => call.raw === held.raw && !call.forwarded)).toBe(true);
    await expect(chain.anvil.client.getTransaction({ hash: heldHash })).rejects.toThrow();
    expect(await sweptLogs(chain)).toEqual([]);

    // What the dead process left: the signed transaction, stored and committed, never broadcast.
    const payoutBefore = await withDb(database, async (handle) => {
      const payout = await handle.db.selectFrom('payouts').select(['id', 'status']).where('issuance_id', '=', invoice.id).executeTakeFirstOrThrow();
      const rows = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select(['tx_hash', 'status', 'broadcast_at']).where('payout_id', '=', payout.id).execute();
      return { payout, rows };
    });
    expect(payoutBefore.payout.status).toBe('sending');
    expect(payoutBefore.rows).toEqual([{ tx_hash: heldHash, status: 'pending', broadcast_at: null }]);

    proxy.holdBroadcasts = false;
    const second = await serve('serve-2');
    const settled = await waitSettled(second, shop, invoice.id);
    const settledAt = Date.now();
    expect(settled.payout_tx_hash).toBe(heldHash);
    const swept = await sweptLogs(chain);
    expect(swept).toEqual([{ forwarder: invoice.address, toRecipient: amount - fee(amount), toOperator: fee(amount), txHash: heldHash }]);
    expect(await balanceOf(chain, shop.recipient)).toBe(amount - fee(amount));
    expect(new Set(proxy.broadcasts.map((call) => call.raw))).toEqual(new Set([held.raw])); // no second transaction was ever signed

    await stop(second); // PGlite: one process at a time on the data directory
    await withDb(database, async (handle) => {
      const payouts = await handle.db.selectFrom('payouts').select(['id', 'status', 'tx_hash']).where('issuance_id', '=', invoice.id).execute();
      expect(payouts).toEqual([{ id: payoutBefore.payout.id, status: 'confirmed', tx_hash: heldHash }]);
      const rows = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select(['tx_hash', 'status']).where('payout_id', '=', payoutBefore.payout.id).execute();
      expect(rows).toEqual([{ tx_hash: heldHash, status: 'confirmed' }]);
      const types = await handle.db.selectFrom('events').select('type').where('issuance_id', '=', invoice.id).orderBy('sequence').execute();
      expect(types.map((row) => row.type)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    });
    console.warn(`[processes] killed after commit → restarted → settled: ${settledAt - started} ms in all (${onPostgres ? 'PostgreSQL' : 'PGlite'})`);
  }, 90_000);

  it('killed after committing a BATCH of sweeps, before its broadcast: the restarted process broadcasts the stored sweepBatch; one sweep per invoice (docs/decisions/0037)', async () => {
    const shop = shops[0] as (typeof shops)[number];
    const first = await serve('serve-batch-1');
    await fundRelayer(baseUrl, chain);
    const amounts = [usd(12), usd(13)];
    const ids = await Promise.all(amounts.map((amount) => createInvoice(baseUrl, chain, shop, amount)));
    const invoices = await Promise.all(
      ids.map((id) =>
        waitFor('the invoice open with an address', async () => {
          const view = await readIssuance(baseUrl, shop, id);
          return view.status === 'open' && view.address !== null ? { id, address: getAddress(view.address) } : undefined;
        }, { processes: [first] }),
      ),
    );
    // Both paid in one transaction: credited together, their payouts due in the same pass.
    proxy.holdBroadcasts = true;
    const broadcastsBefore = proxy.broadcasts.length;
    const client = chain.anvil.client;
    const batcher = await deployBatcher(chain.anvil, PAYER);
    await client.waitForTransactionReceipt({ hash: await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: chain.token, abi: erc20Abi, functionName: 'approve', args: [batcher.address, maxUint256] }) });
    const paid = await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: batcher.address, abi: batcher.abi, functionName: 'pay', args: [chain.token, invoices.map((invoice) => invoice.address), amounts] });
    expect((await client.waitForTransactionReceipt({ hash: paid })).status).toBe('success');
    await client.mine({ blocks: CONFIRMATIONS });

    const held = await waitFor('a held eth_sendRawTransaction', async () => proxy.broadcasts[broadcastsBefore], { processes: [first], timeoutMs: 20_000 });
    await kill(first);
    const heldHash = keccak256(held.raw);
    expect(decodeFunctionData({ abi: invoiceForwarderFactoryAbi, data: parseTransaction(held.raw).data ?? '0x' }).functionName).toBe('sweepBatch');
    const stored = await withDb(database, async (handle) => {
      const payouts = await handle.db.selectFrom('payouts').select(['id']).where('issuance_id', 'in', ids).execute();
      const members = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_members').select(['payout_id', 'nonce']).where('payout_id', 'in', payouts.map((payout) => payout.id)).execute();
      const rows = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select(['tx_hash', 'status', 'broadcast_at', 'payout_id']).where('tx_hash', '=', heldHash).execute();
      return { payouts, members, rows };
    });
    expect(stored.rows).toEqual([{ tx_hash: heldHash, status: 'pending', broadcast_at: null, payout_id: null }]);
    expect(stored.members).toHaveLength(2);
    expect(new Set(stored.members.map((member) => String(member.nonce))).size).toBe(1);

    proxy.holdBroadcasts = false;
    const second = await serve('serve-batch-2');
    const settled = await Promise.all(ids.map((id) => waitSettled(second, shop, id)));
    expect(settled.map((view) => view.payout_tx_hash)).toEqual([heldHash, heldHash]);
    const swept = (await sweptLogs(chain)).filter((log) => invoices.some((invoice) => invoice.address === log.forwarder));
    expect(swept).toEqual(invoices.map((invoice, index) => ({ forwarder: invoice.address, toRecipient: (amounts[index] as bigint) - fee(amounts[index] as bigint), toOperator: fee(amounts[index] as bigint), txHash: heldHash })));
    expect(new Set(proxy.broadcasts.slice(broadcastsBefore).map((call) => call.raw))).toEqual(new Set([held.raw])); // no second transaction was ever signed
    await stop(second);
    await withDb(database, async (handle) => {
      for (const id of ids) {
        const types = await handle.db.selectFrom('events').select('type').where('issuance_id', '=', id).orderBy('sequence').execute();
        expect(types.map((row) => row.type)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
      }
    });
  }, 90_000);

  it.skipIf(!onPostgres)(
    'killed after signing, before the commit (blocked on the INSERT of the signed transaction): nothing stored, no nonce taken; once its lease runs out the restarted process signs again; one sweep',
    async () => {
      // Needs a second database session to block the dying process at exactly that point:
      // PostgreSQL only (PGlite is in-process). The in-process hook test covers PGlite
      // (test/chain/evm-payouts.test.ts "killed after signing, before the commit").
      const started = Date.now();
      const shop = shops[1] as (typeof shops)[number];
      const handle = await database.open();
      const blocker = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await blocker.connect();
      // pg_stat_activity is a snapshot per transaction: watch it from outside the blocker's.
      const monitor = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await monitor.connect();
      try {
        // How PostgreSQL should run under Ivory anyway: a session whose client died is ended
        // within 100 ms even while it waits on a lock (else it would wait for the lock first,
        // then finish its statement, e.g. take the payout tracker's lease for a dead process).
        await monitor.query(`alter database ${database.name} set client_connection_check_interval = '100ms'`);
        const first = await serve('serve-3');
        await fundRelayer(baseUrl, chain);
        const relayerBefore = await handle.db.withTables<EvmTables>().selectFrom('evm_relayers').select(['next_nonce']).executeTakeFirstOrThrow();
        const broadcastsBefore = proxy.broadcasts.length;
        // EXCLUSIVE mode: reads go on (the process locks the relayer row, lists the payout's
        // attempts, signs), the INSERT of the signed transaction waits.
        await blocker.query('begin');
        await blocker.query('lock table evm_payout_transactions in exclusive mode');
        const amount = usd(25);
        const invoice = await openAndPay(first, shop, amount);
        const waiting = await waitFor(
          'the process blocked on inserting its signed transaction',
          async () => {
            const { rows } = await monitor.query<{ pid: number }>(
              `select pid from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and query ilike 'insert into "evm_payout_transactions"%'`,
              [database.name],
            );
            return rows[0];
          },
          { processes: [first], timeoutMs: 20_000 },
        );
        await kill(first);
        // With client_connection_check_interval, PostgreSQL notices the dead client while its
        // session still waits on the lock, and rolls its transaction back: nothing was inserted.
        await waitFor('the dead session gone', async () => {
          const { rows } = await monitor.query('select 1 from pg_stat_activity where pid = $1', [waiting.pid]);
          return rows.length === 0 ? true : undefined;
        });
        await blocker.query('rollback');

        const payout = await handle.db.selectFrom('payouts').select(['id', 'status', 'next_attempt_at']).where('issuance_id', '=', invoice.id).executeTakeFirstOrThrow();
        expect(payout.status).toBe('sending');
        expect(await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select('id').where('payout_id', '=', payout.id).execute()).toEqual([]);
        expect(await handle.db.withTables<EvmTables>().selectFrom('evm_relayers').select(['next_nonce']).executeTakeFirstOrThrow()).toEqual(relayerBefore);
        expect(proxy.broadcasts.length).toBe(broadcastsBefore); // the signed transaction never left the process
        expect((await sweptLogs(chain)).filter((log) => log.forwarder === invoice.address)).toEqual([]);

        // The claim of the dead worker is a lease (10 minutes): another process claims the payout
        // only when it runs out. Rather than wait, the test makes it run out now.
        expect(payout.next_attempt_at?.getTime()).toBeGreaterThan(Date.now() + 60_000);
        await handle.db.updateTable('payouts').set({ next_attempt_at: new Date(Date.now() - 1_000) }).where('id', '=', payout.id).execute();

        const second = await serve('serve-4');
        const settled = await waitSettled(second, shop, invoice.id);
        const sweeps = (await sweptLogs(chain)).filter((log) => log.forwarder === invoice.address);
        expect(sweeps).toEqual([{ forwarder: invoice.address, toRecipient: amount - fee(amount), toOperator: fee(amount), txHash: settled.payout_tx_hash }]);
        expect(await balanceOf(chain, shop.recipient)).toBe(amount - fee(amount));
        const rows = await handle.db.withTables<EvmTables>().selectFrom('evm_payout_transactions').select(['tx_hash', 'status', 'nonce']).where('payout_id', '=', payout.id).execute();
        expect(rows).toEqual([{ tx_hash: settled.payout_tx_hash, status: 'confirmed', nonce: relayerBefore.next_nonce }]); // the dead process's signature took no nonce
        const types = await handle.db.selectFrom('events').select('type').where('issuance_id', '=', invoice.id).orderBy('sequence').execute();
        expect(types.map((row) => row.type)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
        console.warn(`[processes] killed after signing → restarted → settled: ${Date.now() - started} ms (PostgreSQL)`);
      } finally {
        await blocker.end();
        await monitor.end();
        await handle.close();
      }
    },
    90_000,
  );
});

describe('a serve process killed during a catch-up batch, then restarted (issue 22 item 4)', () => {
  const DEPOSITS = 4;
  const TRANSACTIONS = 20;
  const PER_TRANSACTION = 100;
  const TOTAL = TRANSACTIONS * PER_TRANSACTION;
  const ONE = usd(1);
  let chain: Chain;
  let node: FaultyRpc;
  let database: TestDatabase;
  let env: Record<string, string>;
  let baseUrl: string;
  let shop: { shopId: string; token: string; recipient: Address };

  beforeAll(async () => {
    chain = await startChain();
    database = onPostgres ? await clonedPostgres() : await embeddedDataDir();
    [shop] = (await withDb(database, (handle) => liveShops(handle, [newRecipient()]))) as [typeof shop];
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // One block per log query, each answered slowly: catch-up takes seconds, long enough to be killed in.
    node = await startFaultyRpc(chain.anvil.rpcUrl);
    env = { ...database.env, NETWORKS_FILE: writeCatalogue(chain, node.url, { max_block_range: 1 }), PORT: String(port), PUBLIC_URL: baseUrl };
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    await node?.close();
    await database?.drop();
    await chain?.anvil.stop();
  });

  async function createDeposit(): Promise<string> {
    const response = await fetch(`${baseUrl}/api/v1/shops/${shop.shopId}/deposits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.token}`, 'idempotency-key': randomBytes(12).toString('hex'), 'content-type': 'application/json' },
      body: JSON.stringify({ chain_id: chain.anvil.chainId, token: chain.token }),
    });
    const body = await response.text();
    if (response.status !== 202) throw new Error(`create deposit: ${response.status} ${body}`);
    return (JSON.parse(body) as { id: string }).id;
  }

  const receivedOf = async (ids: readonly string[]) => (await Promise.all(ids.map((id) => readIssuance(baseUrl, shop, id)))).reduce((sum, view) => sum + BigInt(view.received), 0n);

  it(`${TOTAL} transfers paid while it was down: killed (SIGKILL) once crediting has begun, restarted, each credited exactly once`, async () => {
    const first = spawnIvory('catch-up-1', env, 'all');
    await waitHealthy(baseUrl, first);
    const ids = await Promise.all(Array.from({ length: DEPOSITS }, () => createDeposit()));
    const addresses = await Promise.all(
      ids.map((id) =>
        waitFor('the deposit open with an address', async () => {
          const view = await readIssuance(baseUrl, shop, id);
          return view.status === 'open' && view.address !== null ? getAddress(view.address) : undefined;
        }, { processes: [first] }),
      ),
    );
    await stop(first);
    // The node the next process starts on admits only to blocks before the payments, until released.
    node.headAt = await chain.anvil.client.getBlockNumber();

    // While nobody watches: TOTAL transfers in TRANSACTIONS transactions, round-robin over the deposits.
    const batcher = await deployBatcher(chain.anvil, PAYER);
    await mintToPayer(chain, ONE * BigInt(TOTAL));
    const client = chain.anvil.client;
    await client.waitForTransactionReceipt({ hash: await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: chain.token, abi: erc20Abi, functionName: 'approve', args: [batcher.address, maxUint256] }) });
    for (let index = 0; index < TRANSACTIONS; index += 1) {
      const to = Array.from({ length: PER_TRANSACTION }, (_, position) => addresses[position % DEPOSITS] as Address);
      const hash = await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: batcher.address, abi: batcher.abi, functionName: 'pay', args: [chain.token, to, to.map(() => ONE)] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    }
    await client.mine({ blocks: CONFIRMATIONS });

    // Catch-up: the process is up before the node shows the payments; killed at the first sign of crediting.
    node.delayMs = (method) => (method === 'eth_getLogs' ? 300 : 0);
    const second = spawnIvory('catch-up-2', env, 'all');
    await waitHealthy(baseUrl, second);
    const queries = () => node.seen.get('eth_getLogs') ?? 0;
    const before = queries();
    node.headAt = null;
    // Half-way through the blocks of the payments: some ranges committed, the rest not read yet.
    await waitFor('catch-up half-way', async () => (queries() >= before + TRANSACTIONS / 2 ? true : undefined), { processes: [second], tickMs: 5, timeoutMs: 60_000 });
    await kill(second);
    node.delayMs = () => 0;
    const atKill = await withDb(database, async (handle) => (await handle.db.selectFrom('transfers').select('id').where('issuance_id', 'in', ids).execute()).length);
    expect(atKill, 'killed mid catch-up').toBeLessThan(TOTAL);

    const third = spawnIvory('catch-up-3', env, 'all');
    await waitHealthy(baseUrl, third);
    await waitFor('every transfer credited', async () => ((await receivedOf(ids)) === ONE * BigInt(TOTAL) ? true : undefined), { processes: [third], timeoutMs: 90_000, tickMs: 250 });
    await stop(third);

    await withDb(database, async (handle) => {
      const transfers = await handle.db.selectFrom('transfers').select(['tx_hash', 'log_index', 'status']).where('issuance_id', 'in', ids).execute();
      expect(transfers).toHaveLength(TOTAL);
      expect(new Set(transfers.map((row) => `${row.tx_hash}:${row.log_index}`)).size).toBe(TOTAL);
      expect(transfers.every((row) => row.status === 'confirmed')).toBe(true);
      const confirmed = await handle.db.selectFrom('events').select('id').where('issuance_id', 'in', ids).where('type', '=', 'transfer.confirmed').execute();
      expect(confirmed).toHaveLength(TOTAL);
    });
  }, 240_000);
});
