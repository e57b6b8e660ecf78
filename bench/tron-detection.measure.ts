import { it } from 'vitest';
import { sql } from 'kysely';
import { createTronInvoice, liveTronShop, newTronWallet, readTronIssuance, send, startTronHarness, tronAdminNetworks } from '../test/support/tron-chain.js';

// Issue 23 "Done when": detection latency on Tron, p99 target = solidified lag + 1.5 s. The
// local Tron node makes a block every BLOCK_MS with the solidified head SOLID_LAG blocks behind;
// Ivory runs its jobs in the background as `serve` does (watcher polling every second, the
// default). Measured per payment: from the moment the node first serves a solidified head at or
// above the transfer's block to the moment the transfer is confirmed in Ivory's ledger.

const PAYMENTS = Number(process.env.BENCH_TRON_PAYMENTS ?? 30);
const BLOCK_MS = Number(process.env.BENCH_TRON_BLOCK_MS ?? 3_000);
const SOLID_LAG = Number(process.env.BENCH_TRON_SOLID_LAG ?? 2);

it(`Tron detection latency: ${PAYMENTS} payments, ${BLOCK_MS} ms blocks, solidified ${SOLID_LAG} blocks behind`, async () => {
  const chain = await startTronHarness({ liveBlocks: true, runJobs: true, pollIntervalMs: 'default', node: { blockMs: BLOCK_MS, solidLag: SOLID_LAG } });
  try {
    const [network] = await tronAdminNetworks(chain.app);
    await chain.node.fund(network?.relayer_address ?? '', 100_000_000_000n);
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoices = [];
    for (let index = 0; index < PAYMENTS; index += 1) {
      let invoice = await createTronInvoice(chain, shop, 1_000_000n);
      // The background allocation job gives the address.
      while (invoice.address === '' || invoice.address === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        invoice = await readTronIssuance(chain, shop, invoice.id);
      }
      invoices.push(invoice);
    }
    const { payer, node, token } = chain;
    await send(node, payer.privateKey, token, 'mint(address,uint256)', [
      { type: 'address', value: payer.address },
      { type: 'uint256', value: String(PAYMENTS * 1_000_000) },
    ]);
    // When each block number was first served as solidified.
    const solidAt = new Map<number, number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const solid = node.solidNumber();
        if (!solidAt.has(solid)) solidAt.set(solid, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, BLOCK_MS * 2)); // the mint lands
    // When each transfer was first seen confirmed, polled from before the first payment is sent:
    // a loop started after the sends would date the early payments' confirmations to its own start.
    const confirmedAt = new Map<string, number>();
    // The watcher's own record (the ingest inbox), to tell the chain side from the ledger side.
    const inboxConfirmedAt = new Map<string, number>();
    const sent: { txId: string; issuanceId: string }[] = [];
    let sending = true;
    const deadline = Date.now() + 120_000 + PAYMENTS * BLOCK_MS * 2;
    const confirmations = (async () => {
      while ((sending || confirmedAt.size < sent.length) && Date.now() < deadline) {
        const { rows } = await sql<{ tx_hash: string }>`select tx_hash from transfers where status = 'confirmed'`.execute(chain.app.context.db);
        for (const row of rows) if (!confirmedAt.has(row.tx_hash)) confirmedAt.set(row.tx_hash, Date.now());
        const inbox = await sql<{ tx_id: string }>`select tx_id from chain_transfers where status = 'confirmed'`.execute(chain.app.context.db);
        for (const row of inbox.rows) if (!inboxConfirmedAt.has(row.tx_id)) inboxConfirmedAt.set(row.tx_id, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    for (const invoice of invoices) {
      sent.push({ txId: await send(node, payer.privateKey, token, 'transfer(address,uint256)', [{ type: 'address', value: invoice.address }, { type: 'uint256', value: '1000000' }]), issuanceId: invoice.id });
      await new Promise((resolve) => setTimeout(resolve, BLOCK_MS / 4));
    }
    sending = false;
    await confirmations;
    watching = false;
    await watch;
    const latencies: number[] = [];
    const inboxLatencies: number[] = [];
    for (const { txId } of sent) {
      const info = (await (await fetch(`${node.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txId }) })).json()) as { blockNumber?: number };
      const at = confirmedAt.get(txId);
      const solidified = [...solidAt.entries()].filter(([number]) => info.blockNumber !== undefined && number >= info.blockNumber).map(([, time]) => time);
      if (at === undefined || solidified.length === 0) continue;
      latencies.push(at - Math.min(...solidified));
      const inboxAt = inboxConfirmedAt.get(txId);
      if (inboxAt !== undefined) inboxLatencies.push(inboxAt - Math.min(...solidified));
    }
    inboxLatencies.sort((a, b) => a - b);
    const inboxQuantile = (q: number) => inboxLatencies[Math.min(inboxLatencies.length - 1, Math.ceil(q * inboxLatencies.length) - 1)];
    latencies.sort((a, b) => a - b);
    const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    process.stdout.write(
      `\nTron detection: ${latencies.length}/${PAYMENTS} confirmed; solidified head served → transfer confirmed in the ledger: p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${latencies.at(-1)} ms ` +
        `; in the watcher's inbox: p50 ${inboxQuantile(0.5)} ms, p99 ${inboxQuantile(0.99)} ms ` +
        `(blocks every ${BLOCK_MS} ms, solidified ${SOLID_LAG} behind: block → confirmed = ${SOLID_LAG} × ${BLOCK_MS} ms + the figures above; target: the solidified lag + 1,500 ms)\n`,
    );
  } finally {
    await chain.close();
  }
});
