import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminNetworks, createLiveInvoice, eventTypes, fundRelayer, liveShop, mineAndSettle, pay, readIssuance, startChainHarness, type ChainHarness } from '../support/evm-chain.js';
import { startFaultyRpc, type FaultyRpc } from '../support/faulty-rpc.js';

// Issue 22 item 5: POST {root_url}/admin/v1/networks/{chain_id}/rescan {from_block, to_block}
// re-reads a scanned range and credits what the first read missed, idempotently; while it
// runs, the network's entry in /admin/v1/networks carries `rescan`. Here the node answers
// eth_getLogs with nothing while a payment is mined (a lossy node), so the first scan misses it.

let harness: ChainHarness;
let node: FaultyRpc;
let shop: Awaited<ReturnType<typeof liveShop>>;

beforeAll(async () => {
  harness = await startChainHarness({
    rpcUrls: async (anvil) => {
      node = await startFaultyRpc(anvil.rpcUrl);
      return [node.url];
    },
  });
  await fundRelayer(harness);
  shop = await liveShop(harness.app, privateKeyToAccount(generatePrivateKey()).address);
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await node?.close();
});

const rescan = (body: unknown, chainId: number | string = harness.anvil.chainId) =>
  harness.app.request({ method: 'POST', url: `/admin/v1/networks/${chainId}/rescan`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body as Record<string, unknown> });

describe('rescans (issue 22 item 5)', () => {
  it('a payment a lossy node hid is credited by a rescan of its block, once; a second rescan changes nothing', async () => {
    const invoice = await createLiveInvoice(harness, shop, 10_000_000n);
    node.fault = { kind: 'empty_result' };
    node.hits = (method) => method === 'eth_getLogs';
    const hash = await pay(harness, invoice.address, 10_000_000n);
    const mined = (await harness.anvil.client.getTransactionReceipt({ hash })).blockNumber;
    await mineAndSettle(harness);
    await mineAndSettle(harness);
    node.fault = null;
    await mineAndSettle(harness);
    const [network] = await adminNetworks(harness.app);
    expect(network?.last_scanned_block).toBeGreaterThan(Number(mined));
    expect((await readIssuance(harness, shop, invoice.id)).received).toBe('0'); // missed

    const from = Number(mined) - 1;
    const to = Number(mined) + 1;
    const started = await rescan({ from_block: from, to_block: to });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toEqual({ chain_id: harness.anvil.chainId, rescan: { from_block: from, to_block: to, next_block: from } });
    // While it runs: on the network's admin entry; a second one is refused.
    expect((await adminNetworks(harness.app))[0]).toMatchObject({ rescan: { from_block: from, to_block: to, next_block: from } });
    expect((await rescan({ from_block: from, to_block: to })).json().error).toMatchObject({ code: 'invalid_state', details: { field: 'chain_id' } });

    await mineAndSettle(harness);
    await mineAndSettle(harness);
    expect(await readIssuance(harness, shop, invoice.id)).toMatchObject({ received: '10000000' });
    expect((await adminNetworks(harness.app))[0]).not.toHaveProperty('rescan');
    const events = await eventTypes(harness, invoice.id);
    expect(events.filter((type) => type === 'transfer.confirmed')).toHaveLength(1);

    // The same range again: already credited, nothing changes.
    const before = await eventTypes(harness, invoice.id);
    expect((await rescan({ from_block: from, to_block: to })).statusCode).toBe(202);
    await mineAndSettle(harness);
    await mineAndSettle(harness);
    expect(await eventTypes(harness, invoice.id)).toEqual(before);
    expect((await eventTypes(harness, invoice.id)).filter((type) => type === 'transfer.confirmed')).toHaveLength(1);
    expect((await readIssuance(harness, shop, invoice.id)).received).toBe('10000000');
    const audit = await harness.app.request({ method: 'GET', url: '/admin/v1/audit', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(JSON.stringify(audit.json())).toContain('network.rescan');
  }, 120_000);

  it('refuses what it cannot do, naming the field, and stores nothing', async () => {
    const [network] = await adminNetworks(harness.app);
    const last = network?.last_scanned_block ?? 0;
    const start = harness.contracts.startBlock;
    expect((await rescan({ from_block: start, to_block: last + 10 })).json().error).toMatchObject({ code: 'invalid_request', details: { field: 'to_block' } });
    if (start > 0) expect((await rescan({ from_block: start - 1, to_block: start })).json().error).toMatchObject({ code: 'invalid_request', details: { field: 'from_block' } });
    expect((await rescan({ from_block: start + 5, to_block: start + 4 })).json().error).toMatchObject({ code: 'invalid_request', details: { field: 'to_block' } });
    expect((await rescan({ from_block: -1, to_block: 4 })).statusCode).toBe(400);
    expect((await rescan({ from_block: 1 })).statusCode).toBe(400);
    expect((await rescan({ from_block: 1, to_block: 2 }, 999_999)).statusCode).toBe(404);
    expect((await rescan({ from_block: 1, to_block: 2 }, 'base')).statusCode).toBe(404);
    expect((await adminNetworks(harness.app))[0]).not.toHaveProperty('rescan');
  }, 60_000);
});
