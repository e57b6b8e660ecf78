import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultScene, type FaultScene } from '../support/fault-scene.js';
import type { FaultyRpc, RpcFault } from '../support/faulty-rpc.js';

// Issue 22 item 4: the chain side against the ways real providers fail, on
// anvil through fault-injecting JSON-RPC hops (test/support/faulty-rpc.ts).
// For each fault: invoices are paid on chain while the node misbehaves, then
// it heals, and money must come out exact — no block skipped (every payment
// credited), no transfer credited twice, no payout sent twice (one `Swept` per
// forwarder, balances exact), every event delivered once to a real receiver.

/** Every `every`-th request, whatever its method. */
const everyNth = (every: number) => (_method: string, sequence: number) => sequence % every === 0;

describe('one node that misbehaves (issue 22 item 4)', () => {
  let scene: FaultScene;
  let node: FaultyRpc;
  beforeAll(async () => {
    scene = await startFaultScene(1);
    node = scene.nodes[0] as FaultyRpc;
  }, 120_000);
  afterAll(async () => scene?.close());

  const inject = (fault: RpcFault | null, hits: FaultyRpc['hits'] = () => true) => () => {
    node.fault = fault;
    node.hits = hits;
    node.faulted.clear();
  };
  const heal = () => {
    node.fault = null;
    node.headAt = null;
  };
  const faultedCount = () => [...node.faulted.values()].reduce((sum, count) => sum + count, 0);

  const cases: [string, RpcFault, FaultyRpc['hits']][] = [
    ['HTTP 500 on every second request, every method', { kind: 'status', status: 500 }, everyNth(2)],
    ['HTTP 503 from a load balancer', { kind: 'status', status: 503 }, everyNth(3)],
    ['-32005 "limit exceeded" on eth_getLogs', { kind: 'rpc_error', code: -32005, message: 'limit exceeded' }, (method, sequence) => method === 'eth_getLogs' && sequence % 2 === 0],
    ['"query returned more than 10000 results" (range too large)', { kind: 'rpc_error', code: -32602, message: 'query returned more than 10000 results. Try with this block range [0x1, 0x2].' }, (method, sequence) => method === 'eth_getLogs' && sequence % 2 === 0],
    ['truncated JSON (the answer stops half-way, cleanly)', { kind: 'truncated' }, everyNth(3)],
    ['malformed JSON (an HTML page with status 200)', { kind: 'malformed' }, everyNth(3)],
    ['the connection dropped mid-answer', { kind: 'dropped' }, everyNth(3)],
  ];
  for (const [name, fault, hits] of cases) {
    it(`${name}: every payment credited once, one sweep each, every event delivered`, async () => {
      let faulted = 0;
      await scene.payThrough(inject(fault, hits), () => {
        faulted = faultedCount();
        heal();
      });
      expect(faulted, 'the fault was injected').toBeGreaterThan(0);
      await scene.expectExactMoney();
    }, 120_000);
  }

  it('a timeout (the node never answers one eth_getLogs): retried, nothing lost', async () => {
    let hung = 0;
    let faulted = 0;
    await scene.payThrough(inject({ kind: 'hang' }, (method) => method === 'eth_getLogs' && hung++ === 0), () => {
      faulted = faultedCount();
      heal();
    });
    expect(faulted).toBe(1);
    await scene.expectExactMoney();
  }, 120_000);

  it('a node stuck at an old head: nothing credited past it, all credited once it moves again', async () => {
    await scene.payThrough(
      async () => {
        node.headAt = await scene.harness.anvil.client.getBlockNumber();
      },
      heal,
      {
        whileFaulted: async (invoices) => {
          // Both payments are in blocks the node does not admit to having: neither is credited yet.
          for (const invoice of invoices) expect(await scene.received(invoice.id)).toBe('0');
        },
      },
    );
    await scene.expectExactMoney();
  }, 120_000);

  it('a node whose head goes 8 blocks backwards: no transfer reverted, nothing skipped', async () => {
    await scene.payThrough(async () => {
      node.headAt = (await scene.harness.anvil.client.getBlockNumber()) - 8n;
    }, heal);
    await scene.expectExactMoney();
    expect(await scene.reversals()).toEqual([]);
  }, 120_000);
});

describe('several endpoints, one misbehaving at a time (issue 22 item 3: rpc_urls)', () => {
  let scene: FaultScene;
  beforeAll(async () => {
    scene = await startFaultScene(4);
  }, 120_000);
  afterAll(async () => scene?.close());

  const endpoint = (index: number) => () => scene.nodes[index] as FaultyRpc;
  const [first, second, third, fourth] = [endpoint(0), endpoint(1), endpoint(2), endpoint(3)];
  /** Log queries each endpoint has answered so far: the one answering the passes is the one whose count grows. */
  const logQueries = () => scene.nodes.map((node) => node.seen.get('eth_getLogs') ?? 0);
  const grew = (before: number[]) => logQueries().map((count, index) => count > (before[index] ?? 0));

  it('an endpoint that keeps failing is passed over: payments credited and swept while it still fails', async () => {
    await scene.payThrough(() => undefined, () => undefined);
    const before = logQueries();
    await scene.payThrough(
      () => {
        first().fault = { kind: 'status', status: 502 };
      },
      () => undefined,
    );
    await scene.expectExactMoney();
    expect(first().faulted.size).toBeGreaterThan(0);
    expect(grew(before).slice(0, 2), 'the second endpoint took over the log queries').toEqual([false, true]);
    first().fault = null;
  }, 120_000);

  it('an endpoint stuck at an old head is passed over for one whose head is higher', async () => {
    const before = logQueries();
    await scene.payThrough(
      async () => {
        second().headAt = await scene.harness.anvil.client.getBlockNumber();
      },
      () => undefined,
    );
    await scene.expectExactMoney();
    expect(grew(before).slice(2), 'the third endpoint took over').toEqual([true, false]);
    second().headAt = null;
  }, 120_000);

  it('an endpoint on its own fork is outvoted by one that still has the stored blocks: nothing rewound or reverted', async () => {
    const invoices = await scene.payThrough(() => undefined, () => undefined);
    expect(invoices).toHaveLength(2);
    // The endpoint answering now (the third) starts to disagree about every block from the last ones scanned.
    third().forkedFrom = (await scene.harness.anvil.client.getBlockNumber()) - 3n;
    const before = logQueries();
    await scene.payThrough(() => undefined, () => undefined);
    expect(grew(before)[3], 'the fourth endpoint took over').toBe(true);
    await scene.expectExactMoney();
    expect(await scene.reversals()).toEqual([]);
    third().forkedFrom = null;
    expect(fourth().faulted.size).toBe(0);
  }, 120_000);
});
