import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { recoverForwarder } from '../../src/chains/index.js';
import { ANVIL_KEYS } from '../support/anvil.js';
import { authed, createTestApp, newIdempotencyKey } from '../support/app.js';
import {
  ADMIN_TOKEN,
  FEE_WALLET,
  adminNetworks,
  balanceOf,
  createLiveDeposit,
  createLiveInvoice,
  eventsOf,
  eventTypes,
  fundRelayer,
  liveShop,
  mineAndSettle,
  pay,
  readIssuance,
  startChainHarness,
  type ChainHarness,
} from '../support/evm-chain.js';

// Issue 9 "Tests": whole lifecycles with real tokens and balances checked on chain, on a
// real anvil node, through the real app (catalogue file with rpc_url → EVM adapter,
// watcher, payout worker and tracker). SPEC "What the service does", "States and
// transitions", "Events"; LEDGER "Invoices", "Deposits", "Cancellation and expiry".

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));
/** LEDGER "Fees" with the harness's terms (50 bps, min 0.1, max 5 tokens), in 6-decimal units. */
const fee = (amount: bigint) => {
  const raw = (amount * 50n) / 10_000n;
  return raw < 100_000n ? 100_000n : raw > 5_000_000n ? 5_000_000n : raw;
};
const newRecipient = () => privateKeyToAccount(generatePrivateKey()).address;

describe('live EVM invoices and deposits on anvil', () => {
  let chain: ChainHarness;
  beforeAll(async () => {
    chain = await startChainHarness({ confirmations: 2 });
    await fundRelayer(chain);
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  it('an invoice paid in one transfer: observed, confirmed at depth, funded, swept, closed and settled', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const amount = usd(25);
    const invoice = await createLiveInvoice(chain, shop, amount);
    // Allocation is the CREATE2 prediction: open at once, with an address.
    expect(invoice.status).toBe('open');
    expect(invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const feeWalletBefore = await balanceOf(chain, FEE_WALLET);
    await pay(chain, invoice.address, amount);
    await mineAndSettle(chain, 0);
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed']);
    expect((await readIssuance(chain, shop, invoice.id)).received).toBe('0');

    await mineAndSettle(chain); // the confirmation depth: confirmed, funded, sweep broadcast
    await mineAndSettle(chain); // the sweep at depth: payout confirmed, invoice closed
    const settled = await readIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(amount.toString());
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);

    // On chain: the recipient got exactly amount − fee, the operator the fee; the forwarder is empty.
    expect(await balanceOf(chain, recipient)).toBe(amount - fee(amount));
    expect((await balanceOf(chain, FEE_WALLET)) - feeWalletBefore).toBe(fee(amount));
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
    const receipt = await chain.anvil.client.getTransactionReceipt({ hash: settled.payout_tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
  });

  it('an invoice paid in two transfers stays open on the partial payment, then settles', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const amount = usd(100);
    const invoice = await createLiveInvoice(chain, shop, amount);
    await pay(chain, invoice.address, usd(40));
    await mineAndSettle(chain);
    const partial = await readIssuance(chain, shop, invoice.id);
    expect(partial.status).toBe('open');
    expect(partial.received).toBe(usd(40).toString());
    expect(await balanceOf(chain, recipient)).toBe(0n);

    await pay(chain, invoice.address, usd(60));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(99.5));
  });

  it('an overpaid invoice: the recipient gets exactly amount − fee, the operator fee plus the excess', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const invoice = await createLiveInvoice(chain, shop, usd(100));
    const feeWalletBefore = await balanceOf(chain, FEE_WALLET);
    await pay(chain, invoice.address, usd(130));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(99.5));
    expect((await balanceOf(chain, FEE_WALLET)) - feeWalletBefore).toBe(usd(30.5));
  });

  it('a late transfer after settlement is recorded and counted in received, never swept; the operator recovers it along the split', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const invoice = await createLiveInvoice(chain, shop, usd(10));
    await pay(chain, invoice.address, usd(10));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');

    await pay(chain, invoice.address, usd(5));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    const late = await readIssuance(chain, shop, invoice.id);
    expect(late.status).toBe('settled');
    expect(late.received).toBe(usd(15).toString());
    expect(await balanceOf(chain, invoice.address)).toBe(usd(5)); // stays at the address
    expect(await balanceOf(chain, recipient)).toBe(usd(10) - fee(usd(10)));
    const events = await eventsOf(chain, invoice.id);
    expect(events.filter((event) => event.type === 'payout.sent')).toHaveLength(1);

    // The explicit operator command (ivory contracts recover): along the committed split only.
    const stranger = generatePrivateKey();
    await expect(recoverForwarder(chain.app.context.db, { issuanceId: invoice.id, asset: chain.token, privateKey: stranger, rpcUrl: chain.anvil.rpcUrl })).rejects.toThrow();
    const feeWalletBefore = await balanceOf(chain, FEE_WALLET);
    const recovered = await recoverForwarder(chain.app.context.db, { issuanceId: invoice.id, asset: chain.token, privateKey: ANVIL_KEYS[0], rpcUrl: chain.anvil.rpcUrl });
    expect(recovered).toMatchObject({ toRecipient: usd(5) - fee(usd(5)), toOperator: fee(usd(5)) });
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
    expect(await balanceOf(chain, recipient)).toBe(usd(10) - fee(usd(10)) + usd(5) - fee(usd(5)));
    expect((await balanceOf(chain, FEE_WALLET)) - feeWalletBefore).toBe(fee(usd(5)));
  });

  it('a cancelled invoice paid anyway pays out, its payout events carrying invoice_cancelled: true', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const invoice = await createLiveInvoice(chain, shop, usd(20));
    const cancel = await chain.app.request({ method: 'POST', url: `/api/v1/shops/${shop.shopId}/invoices/${invoice.id}/cancel`, headers: authed(shop.token, newIdempotencyKey()) });
    expect(cancel.statusCode).toBe(200);
    await pay(chain, invoice.address, usd(20));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(20) - fee(usd(20)));
    const payoutEvents = (await eventsOf(chain, invoice.id)).filter((event) => event.type.startsWith('payout.'));
    expect(payoutEvents.map((event) => event.type)).toEqual(['payout.sent', 'payout.confirmed']);
    for (const event of payoutEvents) expect(event.data.invoice_cancelled).toBe(true);
  });

  it('a transfer of another catalogue token to a watched address is not credited', async () => {
    const shop = await liveShop(chain.app, newRecipient());
    const invoice = await createLiveInvoice(chain, shop, usd(10));
    await pay(chain, invoice.address, usd(10), chain.otherToken);
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    const after = await readIssuance(chain, shop, invoice.id);
    expect(after.status).toBe('open');
    expect(after.received).toBe('0');
    expect(await eventTypes(chain, invoice.id)).toEqual([]);
  });

  it('a group paid on one option, then on the other: the second carries duplicate: true and is never swept', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const created = await chain.app.request({
      method: 'POST',
      url: `/api/v1/shops/${shop.shopId}/invoices`,
      headers: authed(shop.token, newIdempotencyKey()),
      payload: { assets: [{ chain_id: chain.anvil.chainId, token: chain.token }, { chain_id: chain.anvil.chainId, token: chain.otherToken }], amount: '12.5' },
    });
    expect(created.statusCode).toBe(202);
    await chain.app.jobs.drain();
    const group = await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${created.json<{ id: string }>().id}`, headers: authed(shop.token) });
    const [first, second] = group.json<{ options: Array<{ id: string; address: string }> }>().options;
    if (first === undefined || second === undefined) throw new Error('a group of two options');

    await pay(chain, first.address, usd(12.5));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(12.5) - fee(usd(12.5)));

    await pay(chain, second.address, usd(12.5), chain.otherToken);
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    const duplicate = (await eventsOf(chain, second.id)).find((event) => event.type === 'transfer.confirmed');
    expect(duplicate?.data.duplicate).toBe(true);
    expect((await eventTypes(chain, second.id)).some((type) => type.startsWith('payout.'))).toBe(false);
    expect(await balanceOf(chain, second.address, chain.otherToken)).toBe(usd(12.5)); // stays at the address
    expect(await balanceOf(chain, recipient, chain.otherToken)).toBe(0n);
  });

  it('a deposit sweeps whenever its confirmed balance reaches the threshold, twice', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const deposit = await createLiveDeposit(chain, shop);
    expect(deposit.status).toBe('open');
    await pay(chain, deposit.address, usd(4));
    await pay(chain, deposit.address, usd(7)); // 11 ≥ threshold 10
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(11) - fee(usd(11)));
    expect(await balanceOf(chain, deposit.address)).toBe(0n);

    await pay(chain, deposit.address, usd(12));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect(await balanceOf(chain, recipient)).toBe(usd(11) - fee(usd(11)) + usd(12) - fee(usd(12)));
    const types = await eventTypes(chain, deposit.id);
    expect(types.filter((type) => type === 'payout.confirmed')).toHaveLength(2);
    expect(types.filter((type) => type === 'transfer.confirmed')).toHaveLength(3);
  });

  it('GET /admin/v1/networks shows the relayer, its balance, the head and the last scanned block', async () => {
    const [network] = await adminNetworks(chain.app);
    expect(network?.chain_id).toBe(chain.anvil.chainId);
    expect(network?.relayer_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(BigInt(network?.relayer_balance ?? '0') > 0n).toBe(true);
    expect(network?.head_block).toBeGreaterThan(0);
    expect(network?.last_scanned_block).toBeGreaterThan(0);
    const text = JSON.stringify(network);
    expect(text).not.toContain(chain.anvil.rpcUrl);
  });

  it('the admin API answers 401 to a wrong token and 404 when no ADMIN_TOKEN is configured', async () => {
    const wrong = await chain.app.request({ method: 'GET', url: '/admin/v1/networks', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('unauthorized');
    const none = await chain.app.request({ method: 'GET', url: '/admin/v1/networks' });
    expect(none.statusCode).toBe(401);
    const unconfigured = await createTestApp();
    try {
      const answer = await unconfigured.request({ method: 'GET', url: '/admin/v1/networks', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(answer.statusCode).toBe(404);
    } finally {
      await unconfigured.close();
    }
  });
});

describe('a relayer without gas', () => {
  let chain: ChainHarness;
  beforeAll(async () => {
    chain = await startChainHarness({ confirmations: 1, chainId: 31339 });
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  it('parks the payout (gas.wait, no webhook) and pays once the relayer is funded', async () => {
    const recipient = newRecipient();
    const shop = await liveShop(chain.app, recipient);
    const invoice = await createLiveInvoice(chain, shop, usd(10));
    await pay(chain, invoice.address, usd(10));
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    const payout = await chain.app.context.db.selectFrom('payouts').select(['status']).where('issuance_id', '=', invoice.id).executeTakeFirstOrThrow();
    expect(payout.status).toBe('waiting_gas');
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed']);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('funded');

    await fundRelayer(chain);
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    await mineAndSettle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(10) - fee(usd(10)));
  });
});
