import http from 'node:http';
import { getAddress, maxUint256, zeroAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deployTestStablecoin, testStablecoinAbi } from '../../src/chains/evm/contracts/index.js';
import type { EvmNetwork } from '../../src/chains/evm/evm-network.js';
import { EvmWatcherJob, listIssuanceChainTransfers, scanStatus, type EvmWatcherOptions } from '../../src/chains/evm/watcher/index.js';
import { AdaptiveBlockRange } from '../../src/chains/evm/watcher/block-range.js';
import { isRangeLimitError } from '../../src/chains/evm/watcher/evm-rpc.js';
import { missingSteps } from '../../src/chains/ingest/index.js';
import { systemClock } from '../../src/platform/clock.js';
import type { DatabaseHandle } from '../../src/platform/database/database.js';
import { deployBatcher } from '../support/batcher.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';
import { freshDatabase } from '../support/database.js';
import { insertLiveIssuance, transferLedger } from '../support/evm-ledger.js';
import { createOwnerWithShop } from '../support/factories.js';

/**
 * The EVM chain watcher against a real anvil node and the real ledger
 * (`recordTransfer` of issuances, events in the outbox): issue 9 Deliver 4,
 * SPEC "Events" (transfer.observed / confirmed / reverted), ARCHITECTURE
 * rules 3 (credited once, by natural key) and 4 (one scanner per network).
 */

const payer = privateKeyToAccount(ANVIL_KEYS[1]);
const silent = { warn: (details: object, message: string) => (process.env.WATCHER_TEST_LOG ? console.warn(message, details) : undefined) };
const FAST_RETRY: EvmWatcherOptions = { backoff: { initialMs: 1, maxMs: 20 }, rpcTimeoutMs: 1_000 };

let handle: DatabaseHandle;
let shop: { id: string; merchantId: string };
let nextChainId = 41_000;
const started: Anvil[] = [];

beforeAll(async () => {
  handle = await freshDatabase();
  const owner = await createOwnerWithShop(handle.db, { sandbox: false });
  shop = { id: owner.shop.id, merchantId: owner.merchant.id };
});

afterAll(async () => {
  await handle.close();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((anvil) => anvil.stop()));
});

/** A fresh anvil (its own chain id, so each test has its own cursor) with two catalogue stablecoins. */
async function chain() {
  const anvil = await startAnvil({ chainId: (nextChainId += 1) });
  started.push(anvil);
  const usdc = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
  const usdt = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
  const startBlock = await anvil.client.getBlockNumber();
  const network = (overrides: Partial<EvmNetwork> = {}): EvmNetwork => ({
    chainId: anvil.chainId,
    rpcUrl: anvil.rpcUrl,
    confirmations: 2,
    mainFactory: zeroAddress,
    invoiceFactory: zeroAddress,
    startBlock,
    feeWallet: '0x000000000000000000000000000000000000fEE5',
    tokens: [
      { address: usdc, symbol: 'USDC', decimals: 6, minimumSweep: 1_000_000n },
      { address: usdt, symbol: 'USDT', decimals: 6, minimumSweep: 1_000_000n },
    ],
    pollIntervalMs: 50,
    maxBlockRange: 100,
    useFinalizedTag: false,
    ...overrides,
  });
  const mint = async (to: string, amount: bigint, token: Address = usdc): Promise<Hex> => {
    const hash = await anvil.client.writeContract({
      account: payer,
      chain: anvil.chain,
      address: token,
      abi: testStablecoinAbi,
      functionName: 'mint',
      args: [getAddress(to), amount],
    });
    await anvil.client.waitForTransactionReceipt({ hash });
    return hash;
  };
  return { anvil, usdc, usdt, network, mint };
}

function watcher(network: EvmNetwork, options: EvmWatcherOptions = FAST_RETRY): EvmWatcherJob {
  return new EvmWatcherJob({ db: handle.db, clock: systemClock, network, ledger: transferLedger, log: silent, options });
}

/** Runs passes until one does nothing (what the job runner does before it sleeps). */
async function catchUp(job: EvmWatcherJob): Promise<void> {
  for (let pass = 0; pass < 500; pass += 1) if ((await job.run()) === 0) return;
  throw new Error('watcher did not settle in 500 passes');
}

let addressCounter = 0;
function freshAddress(): string {
  addressCounter += 1;
  return getAddress(`0x${'ab'.repeat(10)}${addressCounter.toString(16).padStart(20, '0')}`);
}

async function openInvoice(chainId: number, token: Address, amount = 100_000_000n) {
  const address = freshAddress();
  const { id } = await insertLiveIssuance(handle.db, shop, { chainId, token, address, amount });
  return { id, address };
}

async function eventsOf(issuanceId: string) {
  const rows = await handle.db
    .selectFrom('events')
    .select(['id', 'type', 'envelope'])
    .where('issuance_id', '=', issuanceId)
    .orderBy('sequence')
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type, data: (JSON.parse(row.envelope) as { data: Record<string, unknown> }).data }));
}

async function ledgerTransfers(issuanceId: string) {
  return handle.db.selectFrom('transfers').selectAll().where('issuance_id', '=', issuanceId).orderBy('log_index').execute();
}

async function issuance(issuanceId: string) {
  return handle.db.selectFrom('issuances').selectAll().where('id', '=', issuanceId).executeTakeFirstOrThrow();
}

describe('EVM watcher: observed, then confirmed at depth (SPEC "Events")', () => {
  it('records transfer.observed at first sight and transfer.confirmed once head ≥ block + 2', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const job = watcher(network());
    const hash = await mint(invoice.address, 40_000_000n);
    const minedIn = (await anvil.client.getTransactionReceipt({ hash })).blockNumber;

    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed']);
    expect((await ledgerTransfers(invoice.id)).map((row) => [row.tx_hash, row.status])).toEqual([[hash, 'observed']]);

    await anvil.client.mine({ blocks: 1 });
    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed']);

    await anvil.client.mine({ blocks: 1 }); // head = block + 2
    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
    const [stored] = await listIssuanceChainTransfers(handle.db, invoice.id);
    expect(stored).toMatchObject({ txHash: hash, logIndex: 0, blockNumber: minedIn, status: 'confirmed', credited: true, ledgerStatus: 'confirmed' });
    expect((await issuance(invoice.id)).received).toBe('40000000');

    const head = await anvil.client.getBlockNumber();
    expect(await scanStatus(handle.db, anvil.chainId)).toEqual({ headBlock: head, lastScannedBlock: head });
  });

  it('depth 0 confirms at inclusion: observed then confirmed in the same pass', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    await mint(invoice.address, 100_000_000n);
    await catchUp(watcher(network({ confirmations: 0 })));
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
    expect((await issuance(invoice.id)).status).toBe('funded');
  });

  it('with useFinalizedTag confirms at the node’s finalized block, not at head − confirmations', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const job = watcher(network({ confirmations: 0, useFinalizedTag: true }));
    const hash = await mint(invoice.address, 1_000_000n);
    const minedIn = (await anvil.client.getTransactionReceipt({ hash })).blockNumber;
    await anvil.client.mine({ blocks: 5 });
    await catchUp(job);
    const finalizedBefore = (await anvil.client.getBlock({ blockTag: 'finalized' })).number;
    expect(finalizedBefore < minedIn).toBe(true); // anvil finalizes far behind the head
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed']);

    while ((await anvil.client.getBlock({ blockTag: 'finalized' })).number < minedIn) await anvil.client.mine({ blocks: 16 });
    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
  });
});

describe('EVM watcher: what a transfer is (natural key, token)', () => {
  it('two transfers in one transaction are two transfers, told apart by log index', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const batcher = await deployBatcher(anvil, payer);
    const first = await openInvoice(anvil.chainId, usdc);
    const second = await openInvoice(anvil.chainId, usdc);
    await mint(payer.address, 10_000_000n);
    await anvil.client.waitForTransactionReceipt({
      hash: await anvil.client.writeContract({ account: payer, chain: anvil.chain, address: usdc, abi: testStablecoinAbi, functionName: 'approve', args: [batcher.address, maxUint256] }),
    });
    const hash = await anvil.client.writeContract({
      account: payer,
      chain: anvil.chain,
      address: batcher.address,
      abi: batcher.abi,
      functionName: 'pay',
      args: [usdc, [getAddress(first.address), getAddress(second.address), getAddress(first.address)], [1_000_000n, 2_000_000n, 3_000_000n]],
    });
    await anvil.client.waitForTransactionReceipt({ hash });
    await anvil.client.mine({ blocks: 2 });
    await catchUp(watcher(network()));

    const toFirst = await ledgerTransfers(first.id);
    expect(toFirst.map((row) => [row.tx_hash, row.amount, row.status])).toEqual([
      [hash, '1000000', 'confirmed'],
      [hash, '3000000', 'confirmed'],
    ]);
    expect(toFirst[0]?.log_index).not.toBe(toFirst[1]?.log_index);
    expect((await ledgerTransfers(second.id)).map((row) => [row.tx_hash, row.amount])).toEqual([[hash, '2000000']]);
    expect((await issuance(first.id)).received).toBe('4000000');
    expect((await eventsOf(first.id)).filter((event) => event.type === 'transfer.confirmed')).toHaveLength(2);
  });

  it('another catalogue token sent to a watched address is recorded (credited = false) and never credited', async () => {
    const { anvil, usdc, usdt, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const hash = await mint(invoice.address, 500_000_000n, usdt);
    await anvil.client.mine({ blocks: 2 });
    await catchUp(watcher(network()));

    expect(await listIssuanceChainTransfers(handle.db, invoice.id)).toMatchObject([
      { txHash: hash, token: usdt.toLowerCase(), amount: 500_000_000n, status: 'confirmed', credited: false, ledgerStatus: null },
    ]);
    expect(await ledgerTransfers(invoice.id)).toEqual([]);
    expect(await eventsOf(invoice.id)).toEqual([]);
    const row = await issuance(invoice.id);
    expect([row.status, row.received]).toEqual(['open', '0']);
  });

  it('a transfer to an address allocated after the watcher started is not missed', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const job = watcher(network({ confirmations: 0 }));
    await catchUp(job); // the address book is loaded (empty)
    const invoice = await openInvoice(anvil.chainId, usdc);
    await mint(invoice.address, 7_000_000n);
    await catchUp(job);
    expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
  });
});

describe('EVM watcher: reorgs (ARCHITECTURE rule 3)', () => {
  it('a transfer reorged out before confirmation is dropped, without an event', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const job = watcher(network());
    const snapshot = await anvil.client.snapshot();
    const hash = await mint(invoice.address, 40_000_000n);
    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed']);

    await anvil.client.revert({ id: snapshot });
    await anvil.client.mine({ blocks: 4 }); // a longer chain without the transfer
    await catchUp(job);

    expect(await listIssuanceChainTransfers(handle.db, invoice.id)).toMatchObject([{ txHash: hash, status: 'dropped', ledgerStatus: 'reverted' }]);
    expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['reverted']);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed']);
    expect((await issuance(invoice.id)).received).toBe('0');
    const head = await anvil.client.getBlockNumber();
    expect(await scanStatus(handle.db, anvil.chainId)).toEqual({ headBlock: head, lastScannedBlock: head });
  });

  it('a transfer reorged out after confirmation is reverted: transfer.reverted points at transfer.confirmed', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const job = watcher(network());
    const snapshot = await anvil.client.snapshot();
    const hash = await mint(invoice.address, 40_000_000n);
    await anvil.client.mine({ blocks: 2 });
    await catchUp(job);
    const confirmed = (await eventsOf(invoice.id)).find((event) => event.type === 'transfer.confirmed');
    expect(confirmed).toBeDefined();
    expect((await issuance(invoice.id)).received).toBe('40000000');

    await anvil.client.revert({ id: snapshot });
    await anvil.client.mine({ blocks: 6 });
    await catchUp(job);

    const events = await eventsOf(invoice.id);
    expect(events.map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed', 'transfer.reverted']);
    expect(events[2]?.data.chain_event).toEqual({ reference_event_id: confirmed?.id });
    expect(await listIssuanceChainTransfers(handle.db, invoice.id)).toMatchObject([{ txHash: hash, status: 'reverted' }]);
    expect((await issuance(invoice.id)).received).toBe('0');
  });

  it('a transaction re-mined in another block after a reorg keeps its natural key and is confirmed once', async () => {
    const { anvil, usdc, network } = await chain();
    const invoice = await openInvoice(anvil.chainId, usdc);
    const job = watcher(network());
    const request = await anvil.client.prepareTransactionRequest({
      account: payer,
      chain: anvil.chain,
      to: usdc,
      data: encodeMint(invoice.address, 25_000_000n),
    });
    const raw = await payer.signTransaction({ ...request, chainId: anvil.chainId } as Parameters<typeof payer.signTransaction>[0]);
    const snapshot = await anvil.client.snapshot();
    const hash = await anvil.client.sendRawTransaction({ serializedTransaction: raw });
    const firstBlock = (await anvil.client.waitForTransactionReceipt({ hash })).blockNumber;
    await catchUp(job);

    await anvil.client.revert({ id: snapshot });
    await anvil.client.mine({ blocks: 1 });
    expect(await anvil.client.sendRawTransaction({ serializedTransaction: raw })).toBe(hash);
    const secondBlock = (await anvil.client.waitForTransactionReceipt({ hash })).blockNumber;
    expect(secondBlock).toBe(firstBlock + 1n);
    await catchUp(job);
    expect(await listIssuanceChainTransfers(handle.db, invoice.id)).toMatchObject([{ txHash: hash, logIndex: 0, blockNumber: secondBlock, status: 'observed' }]);

    await anvil.client.mine({ blocks: 2 });
    await catchUp(job);
    expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
    expect((await ledgerTransfers(invoice.id)).map((row) => [row.tx_hash, row.status])).toEqual([[hash, 'confirmed']]);
  });
});

describe('EVM watcher: RPC trouble and concurrency', () => {
  it('with the RPC unreachable for a while (refused, then hanging past the timeout) no block is skipped', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const proxy = await startRpcProxy(anvil.rpcUrl);
    try {
      const invoices = await Promise.all([0, 1, 2, 3].map(() => openInvoice(anvil.chainId, usdc)));
      const job = watcher(network({ rpcUrl: proxy.url, maxBlockRange: 3 }), { backoff: { initialMs: 1, maxMs: 20 }, rpcTimeoutMs: 300 });
      await mint(invoices[0]?.address as string, 1_000_000n);
      await catchUp(job);
      const before = await scanStatus(handle.db, anvil.chainId);

      proxy.mode = 'refuse';
      for (const invoice of invoices.slice(1)) {
        await mint(invoice.address, 2_000_000n);
        await anvil.client.mine({ blocks: 2 });
      }
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect(await job.run()).toBe(0);
        await sleep(25);
      }
      proxy.mode = 'hang';
      expect(await job.run()).toBe(0); // bounded by the 300 ms timeout
      expect(await scanStatus(handle.db, anvil.chainId)).toEqual(before);

      proxy.mode = 'forward';
      const head = await anvil.client.getBlockNumber();
      await untilScanned(job, anvil.chainId, head);
      for (const invoice of invoices) expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
      expectContiguous(proxy.acceptedRanges, network().startBlock, head);
    } finally {
      await proxy.close();
    }
  });

  it('a node whose head goes back below blocks already scanned reverts nothing, and scanning resumes without a gap once it catches up', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const proxy = await startRpcProxy(anvil.rpcUrl);
    try {
      const invoices = await Promise.all([0, 1].map(() => openInvoice(anvil.chainId, usdc, 10_000_000n)));
      const job = watcher(network({ rpcUrl: proxy.url }));
      await anvil.client.mine({ blocks: 10 });
      for (const invoice of invoices) await mint(invoice.address, 10_000_000n);
      await anvil.client.mine({ blocks: 2 });
      await catchUp(job);
      for (const invoice of invoices) expect((await issuance(invoice.id)).status).toBe('funded');
      const scanned = await scanStatus(handle.db, anvil.chainId);

      // The node answers a head 8 blocks below one already seen, and knows
      // neither those blocks nor the payments mined in them.
      proxy.laggingAt = (scanned.lastScannedBlock as bigint) - 8n;
      for (let pass = 0; pass < 5; pass += 1) await job.run();
      expect((await scanStatus(handle.db, anvil.chainId)).lastScannedBlock).toBe(scanned.lastScannedBlock);
      for (const invoice of invoices) {
        expect((await issuance(invoice.id)).status).toBe('funded');
        expect((await issuance(invoice.id)).received).toBe('10000000');
        expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
        expect((await eventsOf(invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
      }

      // Back in step: a later payment is credited and no block was skipped.
      proxy.laggingAt = null;
      const late = await openInvoice(anvil.chainId, usdc, 5_000_000n);
      await mint(late.address, 5_000_000n);
      await anvil.client.mine({ blocks: 2 });
      await untilScanned(job, anvil.chainId, await anvil.client.getBlockNumber());
      expect((await ledgerTransfers(late.id)).map((row) => row.status)).toEqual(['confirmed']);
      expectContiguous(proxy.acceptedRanges, network().startBlock, await anvil.client.getBlockNumber());
      for (const invoice of invoices) expect((await eventsOf(invoice.id)).map((event) => event.type)).not.toContain('transfer.reverted');
    } finally {
      await proxy.close();
    }
  });

  it('an eth_getLogs answer larger than the client reads narrows the range until every transfer is credited', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const proxy = await startRpcProxy(anvil.rpcUrl);
    try {
      const invoices = await Promise.all(Array.from({ length: 12 }, () => openInvoice(anvil.chainId, usdc, 1_000_000n)));
      for (const invoice of invoices) await mint(invoice.address, 1_000_000n);
      await anvil.client.mine({ blocks: 2 });
      const head = await anvil.client.getBlockNumber();
      // About four Transfer logs fit in 2,500 bytes of JSON; the first range holds all twelve.
      await catchUp(watcher(network({ rpcUrl: proxy.url, maxBlockRange: 64 }), { ...FAST_RETRY, rpcMaxResponseBytes: 2_500 }));

      expect((await scanStatus(handle.db, anvil.chainId)).lastScannedBlock).toBe(head);
      const widths = proxy.acceptedRanges.map(([from, to]) => to - from + 1n);
      expect(widths[0]).toBeGreaterThan(widths.at(-1) as bigint); // it asked again, narrower
      for (const invoice of invoices) expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
    } finally {
      await proxy.close();
    }
  });

  it('a range whose answer is cut off mid-way every time is narrowed, never retried forever', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const proxy = await startRpcProxy(anvil.rpcUrl);
    proxy.maxAnswerBytes = 2_500;
    try {
      const invoices = await Promise.all(Array.from({ length: 12 }, () => openInvoice(anvil.chainId, usdc, 1_000_000n)));
      for (const invoice of invoices) await mint(invoice.address, 1_000_000n);
      await anvil.client.mine({ blocks: 2 });
      const head = await anvil.client.getBlockNumber();
      await untilScanned(watcher(network({ rpcUrl: proxy.url, maxBlockRange: 64 })), anvil.chainId, head);

      for (const invoice of invoices) expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
    } finally {
      await proxy.close();
    }
  });

  it('shrinks the block range on a provider limit and never skips a block', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const proxy = await startRpcProxy(anvil.rpcUrl);
    proxy.maxRange = 5;
    try {
      const invoices = await Promise.all([0, 1, 2, 3, 4, 5].map(() => openInvoice(anvil.chainId, usdc)));
      for (const invoice of invoices) {
        await mint(invoice.address, 3_000_000n);
        await anvil.client.mine({ blocks: 4 });
      }
      const head = await anvil.client.getBlockNumber();
      await catchUp(watcher(network({ rpcUrl: proxy.url, maxBlockRange: 64 })));

      expect(proxy.refusedRanges.length).toBeGreaterThan(0);
      expect(proxy.acceptedRanges.every(([from, to]) => to - from + 1n <= 5n)).toBe(true);
      expectContiguous(proxy.acceptedRanges, network().startBlock, head);
      for (const invoice of invoices) expect((await ledgerTransfers(invoice.id)).map((row) => row.status)).toEqual(['confirmed']);
    } finally {
      await proxy.close();
    }
  });

  it('two watchers of one network on one database record each transfer once', async () => {
    const { anvil, usdc, network, mint } = await chain();
    const invoices = await Promise.all(Array.from({ length: 12 }, () => openInvoice(anvil.chainId, usdc, 10_000_000n)));
    const first = watcher(network({ maxBlockRange: 2 }));
    const second = watcher(network({ maxBlockRange: 3 }), { ...FAST_RETRY, ledgerWorkers: 3, ledgerBatchSize: 2 });
    for (const invoice of invoices) await mint(invoice.address, 4_000_000n);
    const racing = Promise.all([catchUp(first), catchUp(second)]);
    for (const invoice of invoices) await mint(invoice.address, 6_000_000n);
    await racing;
    await anvil.client.mine({ blocks: 2 });
    await Promise.all([catchUp(first), catchUp(second)]);

    for (const invoice of invoices) {
      expect((await ledgerTransfers(invoice.id)).map((row) => [row.amount, row.status])).toEqual(
        expect.arrayContaining([
          ['4000000', 'confirmed'],
          ['6000000', 'confirmed'],
        ]),
      );
      const types = (await eventsOf(invoice.id)).map((event) => event.type);
      expect(types.filter((type) => type === 'transfer.observed')).toHaveLength(2);
      expect(types.filter((type) => type === 'transfer.confirmed')).toHaveLength(2);
      const payouts = await handle.db.selectFrom('payouts').select('gross').where('issuance_id', '=', invoice.id).execute();
      expect(payouts.map((payout) => payout.gross)).toEqual(['10000000']);
    }
  });
});

describe('EVM watcher: pure rules', () => {
  it('tells the ledger only the steps it missed, observed before confirmed, nothing for a transfer it never heard of that vanished', () => {
    expect(missingSteps({ status: 'observed', ledgerStatus: null })).toEqual(['observed']);
    expect(missingSteps({ status: 'confirmed', ledgerStatus: null })).toEqual(['observed', 'confirmed']);
    expect(missingSteps({ status: 'confirmed', ledgerStatus: 'observed' })).toEqual(['confirmed']);
    expect(missingSteps({ status: 'confirmed', ledgerStatus: 'confirmed' })).toEqual([]);
    expect(missingSteps({ status: 'dropped', ledgerStatus: null })).toEqual([]);
    expect(missingSteps({ status: 'dropped', ledgerStatus: 'observed' })).toEqual(['reverted']);
    expect(missingSteps({ status: 'reverted', ledgerStatus: 'confirmed' })).toEqual(['reverted']);
    expect(missingSteps({ status: 'reverted', ledgerStatus: 'reverted' })).toEqual([]);
  });

  it('recognises the providers’ range limits and nothing else', () => {
    expect(isRangeLimitError({ code: -32005, message: 'limit' })).toBe(true);
    expect(isRangeLimitError({ status: 413 })).toBe(true);
    expect(isRangeLimitError(new Error('wrapped', { cause: { details: 'query returned more than 10000 results' } }))).toBe(true);
    expect(isRangeLimitError(new Error('eth_getLogs block range is too large'))).toBe(true);
    expect(isRangeLimitError(new Error('fetch failed'))).toBe(false);
    expect(isRangeLimitError(new Error('The request took too long to respond.'))).toBe(false);
  });

  it('halves on refusal, doubles when quiet, and probes a refused width only now and then', () => {
    const range = new AdaptiveBlockRange(64);
    expect(range.refused()).toBe(true);
    expect(range.refused()).toBe(true);
    expect(range.size).toBe(16);
    range.settle(0, 5_000, 500);
    expect(range.size).toBe(16); // 32 was refused: not asked again at once
    for (let quiet = 0; quiet < 31; quiet += 1) range.settle(0, 5_000, 500);
    expect(range.size).toBe(32);
    range.settle(6_000, 5_000, 500);
    expect(range.size).toBe(16); // crowded
    const narrow = new AdaptiveBlockRange(1);
    expect(narrow.refused()).toBe(false);
  });

  it('narrows a width that fails twice in a row without saying why, not one that failed once', () => {
    const range = new AdaptiveBlockRange(64);
    expect(range.failed()).toBe(false);
    range.settle(10, 5_000, 500); // a success in between: bad luck, not the width
    expect(range.failed()).toBe(false);
    expect(range.size).toBe(64);
    expect(range.failed()).toBe(true);
    expect(range.size).toBe(32);
  });
});

// ── helpers ─────────────────────────────────────────────────────────────────

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function untilScanned(job: EvmWatcherJob, chainId: number, head: bigint): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await job.run();
    const status = await scanStatus(handle.db, chainId);
    if (status.lastScannedBlock !== null && status.lastScannedBlock >= head) return catchUp(job);
    await sleep(10);
  }
  throw new Error('the watcher did not catch up');
}

/** The accepted `eth_getLogs` ranges cover [from, to] with neither gap nor overlap, in order. */
function expectContiguous(ranges: readonly (readonly [bigint, bigint])[], from: bigint, to: bigint): void {
  let next = from;
  for (const [start, end] of ranges) {
    expect(start).toBe(next);
    next = end + 1n;
  }
  expect(next - 1n).toBe(to);
}

function encodeMint(to: string, amount: bigint): Hex {
  // mint(address,uint256) = 0x40c10f19
  return `0x40c10f19${getAddress(to).slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`;
}

/** A block or receipt above `head` is unknown to a node that has only reached `head`. */
function asLaggingNode(answer: string, head: bigint): string {
  const parsed = JSON.parse(answer) as { result?: { blockNumber?: string; number?: string } | null };
  const block = parsed.result?.blockNumber ?? parsed.result?.number;
  if (typeof block === 'string' && BigInt(block) > head) return JSON.stringify({ ...parsed, result: null });
  return answer;
}

interface RpcProxy {
  readonly url: string;
  mode: 'forward' | 'refuse' | 'hang';
  /**
   * When set, the proxy is a node that has only reached this block: its head,
   * no block above it, no receipt of a transaction mined above it.
   */
  laggingAt: bigint | null;
  /** An answer longer than this is cut there and the connection dropped (a proxy or provider with a size cap). */
  maxAnswerBytes: number;
  /** eth_getLogs spanning more blocks than this is answered with a provider's range error. */
  maxRange: number;
  readonly acceptedRanges: [bigint, bigint][];
  readonly refusedRanges: [bigint, bigint][];
  close(): Promise<void>;
}

/**
 * A JSON-RPC hop between the watcher and anvil that can refuse connections,
 * hang past the watcher's timeout, or refuse wide `eth_getLogs` ranges the
 * way hosted providers do (-32005); it records the ranges it let through.
 */
async function startRpcProxy(target: string): Promise<RpcProxy> {
  const hanging = new Set<http.ServerResponse>();
  const state: RpcProxy = {
    url: '',
    mode: 'forward',
    laggingAt: null,
    maxAnswerBytes: Number.POSITIVE_INFINITY,
    maxRange: Number.POSITIVE_INFINITY,
    acceptedRanges: [],
    refusedRanges: [],
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((request, response) => {
    if (state.mode === 'refuse') {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (state.mode === 'hang') {
        hanging.add(response);
        return;
      }
      const body = Buffer.concat(chunks).toString();
      const call = JSON.parse(body) as { id: number; method: string; params: { fromBlock: Hex; toBlock: Hex }[] };
      const range: [bigint, bigint] | null = call.method === 'eth_getLogs' ? [BigInt(call.params[0]?.fromBlock as Hex), BigInt(call.params[0]?.toBlock as Hex)] : null;
      if (range !== null && range[1] - range[0] + 1n > BigInt(Math.min(state.maxRange, Number.MAX_SAFE_INTEGER))) {
        state.refusedRanges.push(range);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32005, message: `query exceeds max block range ${state.maxRange}` } }));
        return;
      }
      const lagging = state.laggingAt;
      if (lagging !== null && call.method === 'eth_blockNumber') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: `0x${lagging.toString(16)}` }));
        return;
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) => {
          let text = await answer.text();
          if (lagging !== null) text = asLaggingNode(text, lagging);
          if (Buffer.byteLength(text) > state.maxAnswerBytes) {
            response.writeHead(answer.status, { 'content-type': 'application/json' });
            response.write(Buffer.from(text).subarray(0, state.maxAnswerBytes));
            response.socket?.destroy();
            return;
          }
          if (range !== null && answer.ok && !text.includes('"error"')) state.acceptedRanges.push(range);
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(text);
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return Object.assign(state, { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` });
}
