import { it } from 'vitest';
import { sql } from 'kysely';
import { createSolanaInvoice, fundRelayer, liveSolanaShop, newRecipient, pay, startSolanaHarness } from '../test/support/solana-chain.js';

// Issue 24 "Done when": detection latency on Solana, p99 target = finalized lag + 1.5 s. The local
// node runs at mainnet's pace (a slot every 400 ms, `finalized` 32 slots behind); Ivory runs its jobs
// in the background as `serve` does, polling at the default (1 s). Measured per payment: from the
// moment the node first serves its slot as finalized to the moment the transfer is confirmed in
// Ivory's ledger.

const PAYMENTS = Number(process.env.BENCH_SOLANA_PAYMENTS ?? 20);
const SLOT_MS = Number(process.env.BENCH_SOLANA_SLOT_MS ?? 400);
const FINALIZED_LAG = Number(process.env.BENCH_SOLANA_FINALIZED_LAG ?? 32);

it(`Solana detection latency: ${PAYMENTS} payments, ${SLOT_MS} ms slots, finalized ${FINALIZED_LAG} slots behind`, async () => {
  const chain = await startSolanaHarness({ runJobs: true, pollIntervalMs: 'default', node: { slotMs: SLOT_MS, confirmedLag: 2, finalizedLag: FINALIZED_LAG, blockhashValidity: 150 } });
  // The app's clock is a manual one: keep it in step with the wall clock, as `serve`'s is.
  const ticking = setInterval(() => chain.app.clock.advance(100), 100);
  try {
    await fundRelayer(chain, 10_000_000_000n);
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const invoices = [];
    for (let index = 0; index < PAYMENTS; index += 1) invoices.push((await createSolanaInvoice(chain, shop, 1_000_000n)).allocated);

    // When each slot was first served as finalized.
    const finalizedAt = new Map<bigint, number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const slot = chain.node.slot('finalized');
        if (!finalizedAt.has(slot)) finalizedAt.set(slot, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    // Confirmations polled from before the first payment (a loop started after the last would date early ones late).
    const confirmedAt = new Map<string, number>();
    const sent: string[] = [];
    let sending = true;
    const deadline = Date.now() + 120_000 + PAYMENTS * 5_000;
    const confirmations = (async () => {
      while ((sending || confirmedAt.size < sent.length) && Date.now() < deadline) {
        const { rows } = await sql<{ tx_hash: string }>`select tx_hash from transfers where status = 'confirmed'`.execute(chain.app.context.db);
        for (const row of rows) if (!confirmedAt.has(row.tx_hash)) confirmedAt.set(row.tx_hash, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    for (const invoice of invoices) sent.push(await pay(chain, invoice.address, 1_000_000n));
    sending = false;
    await confirmations;
    watching = false;
    await watch;

    const latencies: number[] = [];
    for (const signature of sent) {
      const { value: [status] } = await chain.rpc.getSignatureStatuses([signature as never]).send();
      const at = confirmedAt.get(signature);
      if (status === null || status === undefined || at === undefined) continue;
      const finalized = [...finalizedAt.entries()].filter(([slot]) => slot >= status.slot).map(([, time]) => time);
      if (finalized.length === 0) continue;
      latencies.push(at - Math.min(...finalized));
    }
    latencies.sort((a, b) => a - b);
    const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    process.stdout.write(
      `\nSolana detection: ${latencies.length}/${PAYMENTS} confirmed; slot finalized → transfer confirmed in the ledger: p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, max ${latencies.at(-1)} ms ` +
        `(slots every ${SLOT_MS} ms, finalized ${FINALIZED_LAG} behind: payment → confirmed = ${FINALIZED_LAG} × ${SLOT_MS} ms + the figures above; target: the finalized lag + 1,500 ms)\n`,
    );
  } finally {
    clearInterval(ticking);
    await chain.close();
  }
});
