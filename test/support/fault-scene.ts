import { parseEventLogs, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { invoiceForwarderFactoryAbi } from '../../src/chains/evm/contracts/index.js';
import { authed, newIdempotencyKey } from './app.js';
import { balanceOf, createLiveInvoice, fundRelayer, liveShop, pay, readIssuance, startChainHarness, type ChainHarness } from './evm-chain.js';
import { startFaultyRpc, type FaultyRpc } from './faulty-rpc.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

const TUSD = (tokens: number) => BigInt(tokens) * 1_000_000n;
export const INVOICE = TUSD(10);
/** LEDGER "Fees" with 50 bps and a 0.1-token minimum: 10 TUSD leaves 9.9 to the recipient. */
const TO_RECIPIENT = 9_900_000n;

/**
 * A live EVM network whose node Ivory reaches only through fault-injecting
 * hops (`nodes`, in the catalogue's `rpc_urls` order), a live shop, and a real
 * webhook receiver subscribed to every event: the stage of the fault suite
 * (issue 22 item 4).
 */
export interface FaultScene {
  readonly harness: ChainHarness;
  readonly nodes: readonly FaultyRpc[];
  /** Two invoices paid on chain while `faulty` misbehaves, then `heal` runs and the jobs run until both settle. */
  payThrough(faulty: (invoices: readonly { id: string }[]) => Promise<void> | void, heal: () => void, options?: { roundsWhileFaulty?: number; whileFaulted?: (invoices: readonly { id: string }[]) => Promise<void> }): Promise<{ id: string }[]>;
  /** Every invoice paid so far is settled with its exact amount, swept once with exact balances, its events delivered once. */
  expectExactMoney(): Promise<void>;
  /** What the ledger has credited to an issuance so far, base units. */
  received(issuanceId: string): Promise<string>;
  /** `transfer.reverted` events of the paid invoices. */
  reversals(): Promise<unknown[]>;
  close(): Promise<void>;
}

export async function startFaultScene(endpoints: number): Promise<FaultScene> {
  const nodes: FaultyRpc[] = [];
  const harness = await startChainHarness({
    env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
    rpcUrls: async (anvil) => {
      for (let index = 0; index < endpoints; index += 1) nodes.push(await startFaultyRpc(anvil.rpcUrl));
      return nodes.map((node) => node.url);
    },
  });
  await fundRelayer(harness);
  const receiver: Receiver = await startReceiver();
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const shop = await liveShop(harness.app, recipient);
  const endpoint = await harness.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/webhooks`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { url: receiver.url, filters: ['transfer', 'invoice', 'payout'] },
  });
  expect(endpoint.statusCode).toBe(201);
  const paid: { id: string; address: Address }[] = [];

  /** Jobs run until nothing is due, a block mined between rounds; a job that throws under a fault is run again next round. */
  const rounds = async (count: number) => {
    for (let round = 0; round < count; round += 1) {
      await harness.anvil.client.mine({ blocks: 1 });
      harness.app.clock.advance(60_000);
      await harness.app.jobs.drain().catch(() => undefined);
    }
  };
  const paidIds = () => paid.map((invoice) => invoice.id);

  return {
    harness,
    nodes,
    async payThrough(faulty, heal, options = {}) {
      const invoices = [await createLiveInvoice(harness, shop, INVOICE), await createLiveInvoice(harness, shop, INVOICE)];
      await faulty(invoices);
      for (const invoice of invoices) await pay(harness, invoice.address, INVOICE);
      await rounds(options.roundsWhileFaulty ?? 6);
      await options.whileFaulted?.(invoices);
      heal();
      // The watcher backs off in real time after failed passes (up to 5 s at this poll interval).
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const states = await Promise.all(invoices.map((invoice) => readIssuance(harness, shop, invoice.id)));
        if (states.every((state) => state.status === 'settled')) break;
        await rounds(1);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      paid.push(...invoices.map((invoice) => ({ id: invoice.id, address: invoice.address as Address })));
      return invoices;
    },
    async expectExactMoney() {
      for (const invoice of paid) {
        const state = await readIssuance(harness, shop, invoice.id);
        const payouts = await harness.app.context.db.selectFrom('payouts').select(['status', 'attempts', 'last_error']).where('issuance_id', '=', invoice.id).execute();
        expect({ status: state.status, received: state.received }, `invoice ${invoice.id}, payouts ${JSON.stringify(payouts)}`).toEqual({ status: 'settled', received: INVOICE.toString() });
      }
      const credited = await harness.app.context.db.selectFrom('transfers').select(['issuance_id', 'status']).where('issuance_id', 'in', paidIds()).execute();
      expect(credited.filter((row) => row.status === 'confirmed')).toHaveLength(paid.length);
      // One sweep per forwarder on chain, and the recipient got exactly amount − fee for each.
      const logs = await harness.anvil.client.getLogs({ address: harness.contracts.invoiceFactory, fromBlock: 0n, toBlock: 'latest' });
      const sweeps = parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' });
      for (const invoice of paid) expect(sweeps.filter((log) => log.args.forwarder.toLowerCase() === invoice.address.toLowerCase()), `sweeps of ${invoice.address}`).toHaveLength(1);
      expect(await balanceOf(harness, recipient)).toBe(TO_RECIPIENT * BigInt(paid.length));
      for (const invoice of paid) expect(await balanceOf(harness, invoice.address)).toBe(0n);
      // Every event of these invoices reached the receiver, none twice.
      const events = await harness.app.context.db.selectFrom('events').select('id').where('issuance_id', 'in', paidIds()).execute();
      await rounds(2);
      const delivered = receiver.received.map((request) => (JSON.parse(request.body.toString()) as { id: string }).id);
      expect(new Set(delivered).size, 'no event delivered twice').toBe(delivered.length);
      expect(new Set(delivered)).toEqual(new Set(events.map((event) => event.id)));
    },
    async received(issuanceId) {
      return (await readIssuance(harness, shop, issuanceId)).received;
    },
    async reversals() {
      return harness.app.context.db.selectFrom('events').select('id').where('type', '=', 'transfer.reverted').where('issuance_id', 'in', paidIds()).execute();
    },
    async close() {
      await harness.close();
      for (const node of nodes) await node.close();
      await receiver.close();
    },
  };
}
