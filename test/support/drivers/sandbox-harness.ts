import { createTestApp, authed, newIdempotencyKey } from '../app.js';
import { createApiKey, createMerchant, createShop, createUser } from '../factories.js';
import type { DriverHarness, HarnessInvoice, HarnessSpec, Payment } from './driver-harness.js';

/** The bundled catalogue's Base network and its USDC (LEDGER's fee terms 50 / 0.1e18 / 5e18). */
const BASE = 8453;
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/**
 * The sandbox family (SPEC "Sandbox", LEDGER "Sandbox"): the sandbox adapter
 * allocates, and "the chain" is the simulate API, run through the same
 * ledger. It moves no money, so it has no sender to kill and no fee payer.
 */
export const sandboxHarness: HarnessSpec = {
  name: 'sandbox',
  notApplicable: {
    'one-sweep': 'the sandbox moves no money: no payout is ever sent, so there is no sender to kill (LEDGER "Sandbox")',
    'gas-wait': 'the sandbox has no fee payer to drain or fund; its gas.wait is a simulated signal that changes payout state only (LEDGER "Sandbox")',
  },
  killPoints: [],
  start: startSandboxHarness,
};

async function startSandboxHarness(): Promise<DriverHarness> {
  const app = await createTestApp();
  /** Each simulated transfer's request, to retry it, and its transfer.confirmed event, to reverse it. */
  const payments = new Map<string, { key: string; payload: Record<string, string>; body: string; eventId: string }>();

  const simulate = (invoice: HarnessInvoice, payload: Record<string, string>, key = newIdempotencyKey()) =>
    app.request({ method: 'POST', url: `/api/v1/shops/${invoice.shop.shopId}/sandbox/simulate`, headers: authed(invoice.shop.apiKey, key), payload });

  const harness: DriverHarness = {
    family: 'evm',
    app,
    chainId: BASE,
    token: BASE_USDC,
    addressPattern: /^0x[0-9a-fA-F]{40}$/,
    observesBeforeConfirming: false,

    async newShop() {
      const user = await createUser(app.context.db);
      const merchant = await createMerchant(app.context.db, user.id);
      const shop = await createShop(app.context.db, merchant.id, { sandbox: true });
      const key = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id });
      return { shopId: shop.id, apiKey: key.token, recipient: '0x000000000000000000000000000000000000dEaD' };
    },

    async pay(invoice, amount): Promise<Payment> {
      app.clock.advance(1_000); // each simulated transfer at its own instant, as on a chain
      const key = newIdempotencyKey();
      const payload = { issuance_id: invoice.id, kind: 'transfer.confirmed', amount: amount.toString() };
      const response = await simulate(invoice, payload, key);
      if (response.statusCode !== 200) throw new Error(`simulate transfer: ${response.statusCode} ${response.body}`);
      const eventId = response.json<{ event_id: string | null }>().event_id;
      if (eventId === null) throw new Error('a simulated transfer wrote no event');
      payments.set(key, { key, payload, body: response.body, eventId });
      return { invoice, amount, handle: key };
    },

    async seeAgain(payment) {
      const sent = payments.get(payment.handle);
      if (sent === undefined) throw new Error(`no payment ${payment.handle}`);
      const again = await simulate(payment.invoice, sent.payload, sent.key);
      // The retried request is answered from the stored response, not run again.
      if (again.statusCode !== 200 || again.body !== sent.body) throw new Error(`retried simulate answered ${again.statusCode} ${again.body}`);
      await app.jobs.drain();
    },

    advance: () => app.jobs.drain(),

    async reverse(payment) {
      const sent = payments.get(payment.handle);
      if (sent === undefined) throw new Error(`no payment ${payment.handle}`);
      const response = await simulate(payment.invoice, { issuance_id: payment.invoice.id, kind: 'transfer.reverted', amount: '0', reference_event_id: sent.eventId });
      if (response.statusCode !== 200) throw new Error(`simulate reversal: ${response.statusCode} ${response.body}`);
      await app.jobs.drain();
    },

    async closeInvoice(invoice) {
      const response = await simulate(invoice, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' });
      if (response.statusCode !== 200) throw new Error(`simulate invoice.closed: ${response.statusCode} ${response.body}`);
      await app.jobs.drain();
    },

    async reset() {},

    close: () => app.close(),
  };
  return harness;
}
