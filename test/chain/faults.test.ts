import { parseEventLogs, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceForwarderFactoryAbi } from '../../src/chains/evm/contracts/index.js';
import { authed, newIdempotencyKey } from '../support/app.js';
import { balanceOf, createLiveInvoice, fundRelayer, liveShop, pay, readIssuance, startChainHarness, type ChainHarness } from '../support/evm-chain.js';
import { startFaultyRpc, type FaultyRpc, type RpcFault } from '../support/faulty-rpc.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

// Issue 22 item 4: the chain side against the ways real providers fail, on
// anvil through a fault-injecting JSON-RPC hop (test/support/faulty-rpc.ts).
// For each fault: invoices are paid on chain while the node misbehaves, then
// the node heals, and money must come out exact — no block skipped (every
// payment credited), no transfer credited twice, no payout sent twice (one
// `Swept` per forwarder, balances exact), every event delivered once to a real
// webhook receiver.

const TUSD = (tokens: number) => BigInt(tokens) * 1_000_000n;
const INVOICE = TUSD(10);
/** LEDGER "Fees" with 50 bps and a 0.1-token minimum: 10 TUSD leaves 9.9 to the recipient. */
const TO_RECIPIENT = 9_900_000n;

let harness: ChainHarness;
let node: FaultyRpc;
let receiver: Receiver;
let shop: Awaited<ReturnType<typeof liveShop>>;
const recipient = privateKeyToAccount(generatePrivateKey()).address;
const paid: { id: string; address: Address }[] = [];

beforeAll(async () => {
  harness = await startChainHarness({
    env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
    rpcUrl: async (anvil) => {
      node = await startFaultyRpc(anvil.rpcUrl);
      return node.url;
    },
  });
  await fundRelayer(harness);
  receiver = await startReceiver();
  shop = await liveShop(harness.app, recipient);
  const endpoint = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/webhooks`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { url: receiver.url, filters: ['transfer', 'invoice', 'payout'] },
  });
  expect(endpoint.statusCode).toBe(201);
}, 120_000);

afterAll(async () => {
  await harness?.close();
  await node?.close();
  await receiver?.close();
});

/** Jobs run until nothing is due, a block mined between rounds; a job that throws under a fault is run again next round. */
async function rounds(count: number): Promise<void> {
  for (let round = 0; round < count; round += 1) {
    await harness.anvil.client.mine({ blocks: 1 });
    harness.app.clock.advance(60_000);
    await harness.app.jobs.drain().catch(() => undefined);
  }
}

/** Two invoices paid on chain while `fault` hits the requests `hits` picks; then the node heals. */
async function payThrough(
  fault: RpcFault | null,
  options: { hits?: FaultyRpc['hits']; headBack?: number; stuck?: boolean; whileFaulted?: (invoices: { id: string }[]) => Promise<void> } = {},
) {
  const invoices = [await createLiveInvoice(harness, shop, INVOICE), await createLiveInvoice(harness, shop, INVOICE)];
  const head = await harness.anvil.client.getBlockNumber();
  node.fault = fault;
  node.hits = options.hits ?? (() => true);
  if (options.stuck === true) node.headAt = head;
  if (options.headBack !== undefined) node.headAt = head - BigInt(options.headBack);
  node.faulted.clear();
  for (const invoice of invoices) await pay(harness, invoice.address, INVOICE);
  await rounds(6);
  await options.whileFaulted?.(invoices);
  const faulted = [...node.faulted.values()].reduce((sum, count) => sum + count, 0);
  node.fault = null;
  node.headAt = null;
  // The watcher backs off in real time after failed passes (up to 5 s at this poll interval).
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const states = await Promise.all(invoices.map((invoice) => readIssuance(harness, shop, invoice.id)));
    if (states.every((state) => state.status === 'settled')) break;
    await rounds(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  paid.push(...invoices.map((invoice) => ({ id: invoice.id, address: invoice.address as Address })));
  return { invoices, faulted };
}

/** What must hold after every fault, over every invoice paid so far. */
async function expectExactMoney(): Promise<void> {
  for (const invoice of paid) {
    const state = await readIssuance(harness, shop, invoice.id);
    const payouts = await harness.app.context.db.selectFrom('payouts').select(['status', 'attempts', 'last_error']).where('issuance_id', '=', invoice.id).execute();
    expect({ status: state.status, received: state.received }, `invoice ${invoice.id}, payouts ${JSON.stringify(payouts)}`).toEqual({ status: 'settled', received: INVOICE.toString() });
  }
  const credited = await harness.app.context.db.selectFrom('transfers').select(['issuance_id', 'status']).where('issuance_id', 'in', paid.map((invoice) => invoice.id)).execute();
  expect(credited.filter((row) => row.status === 'confirmed')).toHaveLength(paid.length);
  // One sweep per forwarder on chain, and the recipient got exactly amount − fee for each.
  const logs = await harness.anvil.client.getLogs({ address: harness.contracts.invoiceFactory, fromBlock: 0n, toBlock: 'latest' });
  const sweeps = parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' });
  for (const invoice of paid) expect(sweeps.filter((log) => log.args.forwarder.toLowerCase() === invoice.address.toLowerCase()), `sweeps of ${invoice.address}`).toHaveLength(1);
  expect(await balanceOf(harness, recipient)).toBe(TO_RECIPIENT * BigInt(paid.length));
  for (const invoice of paid) expect(await balanceOf(harness, invoice.address)).toBe(0n);
  // Every event of these invoices reached the receiver, none twice.
  const events = await harness.app.context.db.selectFrom('events').select('id').where('issuance_id', 'in', paid.map((invoice) => invoice.id)).execute();
  await rounds(2);
  const delivered = receiver.received.map((request) => (JSON.parse(request.body.toString()) as { id: string }).id);
  expect(new Set(delivered).size, 'no event delivered twice').toBe(delivered.length);
  expect(new Set(delivered)).toEqual(new Set(events.map((event) => event.id)));
}

/** Every `every`-th request, whatever its method. */
const everyNth = (every: number) => (_method: string, sequence: number) => sequence % every === 0;

describe('the chain side against a misbehaving node (issue 22 item 4)', () => {
  const cases: [string, RpcFault, FaultyRpc['hits']][] = [
    ['HTTP 500 on every second request, every method', { kind: 'status', status: 500 }, everyNth(2)],
    ['HTTP 502 and 503 from a load balancer', { kind: 'status', status: 503 }, everyNth(3)],
    ['-32005 "limit exceeded" on eth_getLogs', { kind: 'rpc_error', code: -32005, message: 'limit exceeded' }, (method, sequence) => method === 'eth_getLogs' && sequence % 2 === 0],
    ['"query returned more than 10000 results" (range too large)', { kind: 'rpc_error', code: -32602, message: 'query returned more than 10000 results. Try with this block range [0x1, 0x2].' }, (method, sequence) => method === 'eth_getLogs' && sequence % 2 === 0],
    ['truncated JSON (the answer stops half-way, cleanly)', { kind: 'truncated' }, everyNth(3)],
    ['malformed JSON (an HTML page with status 200)', { kind: 'malformed' }, everyNth(3)],
    ['the connection dropped mid-answer', { kind: 'dropped' }, everyNth(3)],
  ];
  for (const [name, fault, hits] of cases) {
    it(`${name}: every payment credited once, one sweep each, every event delivered`, async () => {
      const { faulted } = await payThrough(fault, { hits });
      expect(faulted, 'the fault was injected').toBeGreaterThan(0);
      await expectExactMoney();
    }, 120_000);
  }

  it('a timeout (the node never answers one eth_getLogs): retried, nothing lost', async () => {
    let hung = 0;
    const { faulted } = await payThrough({ kind: 'hang' }, { hits: (method) => method === 'eth_getLogs' && hung++ === 0 });
    expect(faulted).toBe(1);
    await expectExactMoney();
  }, 120_000);

  it('a node stuck at an old head: nothing credited past it, all credited once it moves again', async () => {
    await payThrough(null, {
      stuck: true,
      whileFaulted: async (invoices) => {
        // Both payments are in blocks the node does not admit to having: neither is credited yet.
        for (const invoice of invoices) expect((await readIssuance(harness, shop, invoice.id)).received).toBe('0');
      },
    });
    await expectExactMoney();
  }, 120_000);

  it('a node whose head goes 8 blocks backwards: no transfer reverted, nothing skipped', async () => {
    await payThrough(null, { headBack: 8 });
    await expectExactMoney();
    const reverted = await harness.app.context.db.selectFrom('events').select('id').where('type', '=', 'transfer.reverted').where('issuance_id', 'in', paid.map((invoice) => invoice.id)).execute();
    expect(reverted).toEqual([]);
  }, 120_000);
});
