import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fee, usd } from '../support/drivers/driver-harness.js';
import {
  createTronDeposit,
  createTronInvoice,
  liveTronShop,
  newTronWallet,
  payTron,
  readTronIssuance,
  solidifyTron,
  startTronHarness,
  tronAdminNetworks,
  tronBalanceOf,
  type TronHarness,
} from '../support/tron-chain.js';
import { eventTypes, eventsOf } from '../support/evm-chain.js';
import { authed, newIdempotencyKey } from '../support/app.js';

// Issue 23 "Tests": whole lifecycles on the local Tron node (devnets/tron-node) through the real
// app: catalogue entry with api_url → Tron driver, watcher over /jsonrpc, payouts in energy,
// balances checked on chain. The token is Tether-like: its transfer returns false on success.


describe('live Tron invoices and deposits on the local Tron node', () => {
  let chain: TronHarness;
  let relayer: string;
  beforeAll(async () => {
    chain = await startTronHarness();
    const [network] = await tronAdminNetworks(chain.app);
    relayer = network?.relayer_address ?? '';
    await chain.node.fund(relayer, 1_000_000_000n);
  }, 120_000);
  afterAll(async () => {
    await chain?.close();
  });

  it('the operator sees the relayer as T… with its TRX in sun and its energy', async () => {
    const [network] = await tronAdminNetworks(chain.app);
    expect(network?.chain_id).toBe(chain.node.chainId);
    expect(network?.relayer_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(network?.relayer_balance).toBe('1000000000');
    expect(network?.relayer_energy).toBe(0);
  });

  it('an exact invoice: a T… address at once, credited at the solidified block, swept (amount − fee, fee), settled', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const amount = usd(25);
    const invoice = await createTronInvoice(chain, shop, amount);
    expect(invoice.status).toBe('open');
    expect(invoice.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);

    const feeWalletBefore = await tronBalanceOf(chain, chain.feeWallet);
    await payTron(chain, invoice.address, amount);
    await solidifyTron(chain, 6);
    const settled = await readTronIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(amount.toString());
    expect(await eventTypes(chain as never, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    expect(await tronBalanceOf(chain, recipient)).toBe(amount - fee(amount));
    expect((await tronBalanceOf(chain, chain.feeWallet)) - feeWalletBefore).toBe(fee(amount));
    expect(await tronBalanceOf(chain, invoice.address)).toBe(0n);
    expect(settled.payout_tx_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an overpaid invoice: the recipient gets exactly amount − fee, the operator fee plus the excess', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const invoice = await createTronInvoice(chain, shop, usd(100));
    const feeWalletBefore = await tronBalanceOf(chain, chain.feeWallet);
    await payTron(chain, invoice.address, usd(130));
    await solidifyTron(chain, 6);
    expect((await readTronIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(99.5));
    expect((await tronBalanceOf(chain, chain.feeWallet)) - feeWalletBefore).toBe(usd(30.5));
  });

  it('a group paid on one option, then on the other: the second carries duplicate: true and is never swept', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const created = await chain.app.request({
      method: 'POST',
      url: `/api/v1/shops/${shop.shopId}/invoices`,
      headers: authed(shop.token, newIdempotencyKey()),
      payload: { assets: [{ chain_id: chain.node.chainId, token: chain.token }, { chain_id: chain.node.chainId, token: chain.otherToken }], amount: '12.5' },
    });
    expect(created.statusCode).toBe(202);
    await chain.app.jobs.drain();
    const group = await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${created.json<{ id: string }>().id}`, headers: authed(shop.token) });
    const [first, second] = group.json<{ options: Array<{ id: string; address: string }> }>().options;
    if (first === undefined || second === undefined) throw new Error('a group of two options');
    expect(first.address).toMatch(/^T/);

    await payTron(chain, first.address, usd(12.5));
    await solidifyTron(chain, 6);
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(12.5) - fee(usd(12.5)));

    await payTron(chain, second.address, usd(12.5), chain.otherToken);
    await solidifyTron(chain, 6);
    const duplicate = (await eventsOf(chain as never, second.id)).find((event) => event.type === 'transfer.confirmed');
    expect(duplicate?.data.duplicate).toBe(true);
    expect((await eventTypes(chain as never, second.id)).some((type) => type.startsWith('payout.'))).toBe(false);
    expect(await tronBalanceOf(chain, second.address, chain.otherToken)).toBe(usd(12.5));
    expect(await tronBalanceOf(chain, recipient, chain.otherToken)).toBe(0n);
  });

  it('a deposit takes two top-ups and sweeps twice', async () => {
    const recipient = newTronWallet();
    const shop = await liveTronShop(chain.app, recipient);
    const deposit = await createTronDeposit(chain, shop);
    expect(deposit.address).toMatch(/^T/);
    await payTron(chain, deposit.address, usd(40));
    await solidifyTron(chain, 6);
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(40) - fee(usd(40)));
    await payTron(chain, deposit.address, usd(60));
    await solidifyTron(chain, 6);
    expect(await tronBalanceOf(chain, recipient)).toBe(usd(100) - fee(usd(40)) - fee(usd(60)));
    expect((await readTronIssuance(chain, shop, deposit.id)).received).toBe(usd(100).toString());
  });

  it("the relayer, a factory and a payment address of this service are invalid_tron_recipient (SPEC \"Errors\"); nothing is stored", async () => {
    const shop = await liveTronShop(chain.app, newTronWallet());
    const invoice = await createTronInvoice(chain, shop, usd(1));
    await chain.app.context.db.updateTable('shops').set({ tron_recipient: null }).where('id', '=', shop.shopId).execute();
    for (const own of [relayer, chain.contracts.mainFactory, chain.contracts.invoiceFactory, invoice.address]) {
      const response = await chain.app.request({ method: 'PUT', url: `/api/v1/shops/${shop.shopId}/tron-recipient`, headers: authed(shop.session.token, newIdempotencyKey()), payload: { address: own } });
      expect([response.statusCode, response.json<{ error: { code: string } }>().error.code]).toEqual([400, 'invalid_tron_recipient']);
    }
    const row = await chain.app.context.db.selectFrom('shops').select('tron_recipient').where('id', '=', shop.shopId).executeTakeFirstOrThrow();
    expect(row.tron_recipient).toBeNull();
  });
});
