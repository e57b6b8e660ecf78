import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainAdapter, TronAccess } from '../../src/chains/index.js';
import { createTronApi } from '../../src/chains/tron/tron-api.js';
import { createTronChainAdapter } from '../../src/chains/tron/tron-driver.js';
import { tronNetworkOf } from '../../src/chains/tron/tron-network.js';
import { eventTypes } from '../support/evm-chain.js';
import { fee, usd } from '../support/drivers/driver-harness.js';
import {
  createTronInvoice,
  liveTronShop,
  newTronWallet,
  mineAndSettleTron,
  payTron,
  readTronIssuance,
  solidifyTron,
  startTronHarness,
  tronAdminNetworks,
  tronBalanceOf,
  type TronHarness,
} from '../support/tron-chain.js';

// Issue 23 "Tests": what a Tron network does to a payment service — a block rolled back above
// the solidified head, a sweep that runs out of energy, a node that lies about the transaction
// it builds, a sweep signed and stored by a process that died, found expired after restart.

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function sweepRows(chain: TronHarness, issuanceId: string) {
  const { rows } = await sql<{ status: string; receipt_result: string | null; fee_limit: string }>`
    select t.status, t.receipt_result, t.fee_limit from tron_payout_transactions t join payouts p on p.id = t.payout_id
    where p.issuance_id = ${issuanceId} order by t.created_at, t.id`.execute(chain.app.context.db);
  return rows;
}

describe('Tron faults on the local Tron node', () => {
  let chain: TronHarness;
  const overrides = new Map<number, ChainAdapter>();
  beforeAll(async () => {
    chain = await startTronHarness({ liveChainAdapters: overrides, node: { expirationMs: 3_000 } });
    const [network] = await tronAdminNetworks(chain.app);
    await chain.node.fund(network?.relayer_address ?? '', 2_000_000_000n);
  }, 120_000);
  afterAll(async () => {
    await chain?.close();
  });

  it('a transfer in a block rolled back above the solidified head is never credited; paid again, the invoice settles once', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoice = await createTronInvoice(chain, shop, usd(10));
    const before = chain.node.headNumber();
    await payTron(chain, invoice.address, usd(10));
    await mineAndSettleTron(chain, 1); // seen in a block above the solidified one: observed only
    expect(await eventTypes(chain as never, invoice.id)).toEqual(['transfer.observed']);
    expect((await readTronIssuance(chain, shop, invoice.id)).received).toBe('0');

    // The block of the transfer (fresh head, mint, transfer, one more: before + 3) vanishes.
    expect(chain.node.solidNumber()).toBe(before + 2);
    await chain.node.rollback(before + 2);
    await solidifyTron(chain, 4);
    expect((await readTronIssuance(chain, shop, invoice.id)).received).toBe('0');
    expect(await eventTypes(chain as never, invoice.id)).not.toContain('transfer.confirmed');
    expect(await tronBalanceOf(chain, invoice.address)).toBe(0n);

    await payTron(chain, invoice.address, usd(10));
    await solidifyTron(chain, 6);
    const settled = await readTronIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(usd(10).toString());
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(10) - fee(usd(10)));
  });

  it('a sweep that runs out of energy (a node that under-estimates it) is sweep.failed, then sent with twice the limit and succeeds', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoice = await createTronInvoice(chain, shop, usd(20));
    // The estimate a quarter of the truth: the first sweep's fee_limit cannot cover it.
    chain.node.intercept((path, _request, answer) =>
      path === '/wallet/triggerconstantcontract' && typeof answer === 'object' && answer !== null && 'energy_used' in answer
        ? { ...answer, energy_used: Math.floor(Number((answer as { energy_used: number }).energy_used) / 4) }
        : undefined,
    );
    try {
      await payTron(chain, invoice.address, usd(20));
      await solidifyTron(chain, 4);
    } finally {
      chain.node.intercept();
    }
    await solidifyTron(chain, 8);
    const rows = await sweepRows(chain, invoice.id);
    expect(rows[0]?.receipt_result).toBe('OUT_OF_ENERGY');
    expect(rows[0]?.status).toBe('failed');
    expect(rows.at(-1)?.status).toBe('confirmed');
    expect(BigInt(rows.at(-1)?.fee_limit ?? 0)).toBeGreaterThanOrEqual(2n * BigInt(rows[0]?.fee_limit ?? 0));
    expect((await readTronIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(20) - fee(usd(20)));
  });

  it('a node that builds another transaction than the one asked for gets no signature; nothing is broadcast until an honest answer', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoice = await createTronInvoice(chain, shop, usd(5));
    await payTron(chain, invoice.address, usd(5));
    let lies = 0;
    chain.node.intercept((path, _request, answer) => {
      if (path !== '/wallet/triggersmartcontract') return undefined;
      lies += 1;
      const built = answer as { transaction: { raw_data_hex: string } };
      // The fee limit raised to the network's maximum: a node that would drain the relayer.
      const hex = built.transaction.raw_data_hex.replace(/9001[0-9a-f]+$/, '900180a8d6b907');
      return { ...built, transaction: { ...built.transaction, raw_data_hex: hex } };
    });
    try {
      await solidifyTron(chain, 4);
    } finally {
      chain.node.intercept();
    }
    expect(lies).toBeGreaterThan(0);
    expect(await sweepRows(chain, invoice.id)).toEqual([]);
    expect(await eventTypes(chain as never, invoice.id)).not.toContain('payout.sent');
    expect(await tronBalanceOf(chain, invoice.address)).toBe(usd(5));

    chain.app.clock.advance(3_600_000); // past the payout worker's back-off
    await solidifyTron(chain, 8);
    expect((await readTronIssuance(chain, shop, invoice.id)).status).toBe('settled');
  });

  it('a sweep signed and stored by a process that died before broadcasting it, found expired: exactly one sweep after restart', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoice = await createTronInvoice(chain, shop, usd(7));
    const entry = chain.app.context.catalogue.network(chain.node.chainId);
    const network = tronNetworkOf(entry as never, entry?.chain as TronAccess);
    overrides.set(
      chain.node.chainId,
      createTronChainAdapter({
        db: chain.app.context.db,
        secrets: chain.app.context.secrets,
        clock: chain.app.clock,
        log: silent,
        api: createTronApi(network.api),
        network,
        hooks: {
          afterStore: async () => {
            throw new Error('killed after storing the sweep');
          },
        },
      }),
    );
    await payTron(chain, invoice.address, usd(7));
    await mineAndSettleTron(chain, 3); // confirmed, funded: the dying sender stores a sweep and dies
    overrides.clear();
    const stored = await sweepRows(chain, invoice.id);
    expect(stored.map((row) => row.status)).toEqual(['signed']);

    // The stored transaction expires (3 s after its reference block) without ever being broadcast.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await solidifyTron(chain, 8);
    const rows = await sweepRows(chain, invoice.id);
    expect(rows.map((row) => row.status)).toEqual(['expired', 'confirmed']);
    expect((await readTronIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(7) - fee(usd(7)));
    expect(await tronBalanceOf(chain, invoice.address)).toBe(0n);
  });
});
