import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AddressRequest } from '../../src/chains/index.js';
import { authed, newIdempotencyKey } from '../support/app.js';
import { KILL_POINTS, fee, usd, type DriverHarness, type HarnessInvoice, type HarnessShop, type HarnessSpec } from '../support/drivers/driver-harness.js';
import { evmHarness } from '../support/drivers/evm-harness.js';
import { sandboxHarness } from '../support/drivers/sandbox-harness.js';
import { solanaHarness } from '../support/drivers/solana-harness.js';
import { tronHarness } from '../support/drivers/tron-harness.js';

// Issue 21 item 6: what every chain family driver must do, one suite for all of them.
// The family-specific steps (a node, paying, depth, reorg or rollback, killing the
// sender, the fee payer) sit behind test/support/drivers/driver-harness.ts; a family
// joins by adding its HarnessSpec here. A case a family cannot run is reported
// skipped with the harness's reason, never passed as a no-op.
// Rules: ARCHITECTURE "Chains", LEDGER "Invoices" / "Reversals" / "Sandbox",
// SPEC "States and transitions" and "Events"; the ChainAdapter contract (src/chains/chain-adapter.ts).

const HARNESSES: readonly HarnessSpec[] = [evmHarness, tronHarness, sandboxHarness, solanaHarness];

interface IssuanceView {
  readonly id: string;
  readonly status: string;
  readonly address: string | null;
  readonly received: string;
}

interface EventRow {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

async function readIssuance(h: DriverHarness, shop: HarnessShop, id: string): Promise<IssuanceView> {
  const response = await h.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${id}`, headers: authed(shop.apiKey) });
  if (response.statusCode !== 200) throw new Error(`read issuance: ${response.statusCode} ${response.body}`);
  return response.json<IssuanceView>();
}

/** An invoice of `amount` over the API, through the allocation job: open, with its address. */
async function openInvoice(h: DriverHarness, amount: bigint): Promise<HarnessInvoice> {
  const shop = await h.newShop();
  const response = await h.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/invoices`,
    headers: authed(shop.apiKey, newIdempotencyKey()),
    payload: { chain_id: h.chainId, token: h.token, amount: amount.toString() },
  });
  if (response.statusCode !== 202) throw new Error(`create invoice: ${response.statusCode} ${response.body}`);
  await h.app.jobs.drain();
  const id = response.json<{ id: string }>().id;
  let view = await readIssuance(h, shop, id);
  // A family whose address needs the chain first (Solana's token account) is `registering` until then.
  for (let round = 0; round < 5 && view.status === 'registering'; round += 1) {
    await h.advance();
    view = await readIssuance(h, shop, id);
  }
  expect(view.status).toBe('open');
  if (view.address === null) throw new Error('an open invoice without an address');
  return { shop, id: view.id, address: view.address, amount };
}

const status = async (h: DriverHarness, invoice: HarnessInvoice) => (await readIssuance(h, invoice.shop, invoice.id)).status;
const received = async (h: DriverHarness, invoice: HarnessInvoice) => BigInt((await readIssuance(h, invoice.shop, invoice.id)).received);

async function eventsOf(h: DriverHarness, issuanceId: string): Promise<EventRow[]> {
  const rows = await h.app.context.db.selectFrom('events').select(['envelope']).where('issuance_id', '=', issuanceId).orderBy('sequence').execute();
  return rows.map((row) => JSON.parse(row.envelope) as EventRow);
}

async function eventTypes(h: DriverHarness, issuanceId: string, prefix = ''): Promise<string[]> {
  return (await eventsOf(h, issuanceId)).map((event) => event.type).filter((type) => type.startsWith(prefix));
}

async function payoutsOf(h: DriverHarness, issuanceId: string) {
  return h.app.context.db.selectFrom('payouts').select(['id', 'status']).where('issuance_id', '=', issuanceId).execute();
}

async function transfersOf(h: DriverHarness, issuanceId: string) {
  const rows = await h.app.context.db
    .selectFrom('transfers')
    .select(['tx_hash', 'log_index', 'amount', 'status', 'disposition', 'payout_id'])
    .where('issuance_id', '=', issuanceId)
    .execute();
  return rows.map((row) => ({ ...row, amount: BigInt(row.amount) }));
}

/** Largest first: rows written at one instant of the manual clock have no order of their own. */
function byAmount<T extends { readonly amount: bigint }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
}

/** The request the allocation job makes for an issuance (src/allocation/allocate-addresses.job.ts), from its stored row. */
async function addressRequest(h: DriverHarness, issuanceId: string): Promise<{ sandbox: boolean; request: AddressRequest }> {
  const row = await h.app.context.db.selectFrom('issuances').selectAll().where('id', '=', issuanceId).executeTakeFirstOrThrow();
  return {
    sandbox: row.sandbox,
    request: {
      issuanceId: row.id,
      chainId: row.chain_id,
      family: row.family,
      kind: row.kind,
      token: row.token,
      recipient: row.recipient ?? undefined,
      delegate: row.delegate,
      amount: row.kind === 'invoice' && row.amount !== null ? BigInt(row.amount) : null,
      tokenDecimals: row.token_decimals,
      feeBps: row.fee_bps,
      feeMinimum: BigInt(row.fee_minimum),
      feeMaximum: BigInt(row.fee_maximum),
    },
  };
}

/** A case's title, with the harness's reason when it does not apply there. */
function skipReason(spec: HarnessSpec, name: keyof HarnessSpec['notApplicable']): string | undefined {
  return spec.notApplicable[name];
}
const titled = (title: string, reason: string | undefined) => (reason === undefined ? title : `${title} — not applicable: ${reason}`);

describe.each(HARNESSES)('chain driver conformance: $name', (spec) => {
  let h: DriverHarness;
  beforeAll(async () => {
    h = await spec.start();
  }, 60_000);
  afterEach(async () => {
    await h.reset();
  });
  afterAll(async () => {
    await h?.close();
  });

  const allocation = skipReason(spec, 'allocation');
  it.skipIf(allocation !== undefined)(
    titled('allocation is idempotent per issuance: the adapter asked again (a worker that died after asking) answers the stored address (ChainAdapter.allocateAddress)', allocation),
    async () => {
      const invoice = await openInvoice(h, usd(10));
      expect(invoice.address).toMatch(h.addressPattern);
      const { sandbox, request } = await addressRequest(h, invoice.id);
      const adapter = h.app.context.chains.adapterFor(sandbox, request.chainId, request.family);
      if (adapter === undefined) throw new Error('no adapter serves the invoice');
      // Twice at once (two workers whose leases overlapped), then once more.
      const again = await Promise.all([adapter.allocateAddress(request), adapter.allocateAddress(request)]);
      again.push(await adapter.allocateAddress(request));
      expect(again).toEqual([invoice.address, invoice.address, invoice.address]);
      // Another issuance gets another address.
      const other = await openInvoice(h, usd(10));
      expect(other.address).not.toBe(invoice.address);
    },
  );

  const creditedOnce = skipReason(spec, 'credited-once');
  it.skipIf(creditedOnce !== undefined)(
    titled('transfers in are credited once: a transfer seen again (re-scanned, reported twice) changes neither received nor the events (ARCHITECTURE "Chains": natural key)', creditedOnce),
    async () => {
      const invoice = await openInvoice(h, usd(100));
      const first = await h.pay(invoice, usd(40));
      const second = await h.pay(invoice, usd(30));
      await h.advance();
      const perTransfer = h.observesBeforeConfirming ? ['transfer.observed', 'transfer.confirmed'] : ['transfer.confirmed'];
      // LEDGER "Invoices": partial payments add up; the invoice stays open.
      expect(await received(h, invoice)).toBe(usd(70));
      expect(await status(h, invoice)).toBe('open');
      const events = await eventsOf(h, invoice.id);
      expect(events.map((event) => event.type).sort()).toEqual([...perTransfer, ...perTransfer].sort());

      await h.seeAgain(first);
      await h.seeAgain(second);
      await h.seeAgain(first);
      expect(await received(h, invoice)).toBe(usd(70));
      expect(await status(h, invoice)).toBe('open');
      expect(await eventsOf(h, invoice.id)).toEqual(events);
      expect(byAmount(await transfersOf(h, invoice.id)).map((transfer) => [transfer.amount, transfer.status, transfer.disposition])).toEqual([
        [usd(40), 'confirmed', 'credited'],
        [usd(30), 'confirmed', 'credited'],
      ]);
    },
  );

  const reversal = skipReason(spec, 'reversal');
  it.skipIf(reversal !== undefined)(
    titled('a reorg or rollback un-credits the transfer with transfer.reverted pointing at its transfer.confirmed (LEDGER "Reversals", SPEC "Events")', reversal),
    async () => {
      const invoice = await openInvoice(h, usd(100));
      const payment = await h.pay(invoice, usd(40));
      await h.advance();
      expect(await received(h, invoice)).toBe(usd(40));
      const confirmed = (await eventsOf(h, invoice.id)).find((event) => event.type === 'transfer.confirmed');
      expect(confirmed).toBeDefined();

      await h.reverse(payment);
      expect(await received(h, invoice)).toBe(0n);
      expect(await status(h, invoice)).toBe('open');
      const events = await eventsOf(h, invoice.id);
      expect(events.map((event) => event.type)).toEqual([...(h.observesBeforeConfirming ? ['transfer.observed'] : []), 'transfer.confirmed', 'transfer.reverted']);
      expect(events.at(-1)?.data.chain_event).toEqual({ reference_event_id: confirmed?.id });
      expect((await transfersOf(h, invoice.id)).map((transfer) => transfer.status)).toEqual(['reverted']);

      // Seen again after the reversal: it stays un-credited, reverted once.
      await h.advance();
      expect(await received(h, invoice)).toBe(0n);
      expect(await eventTypes(h, invoice.id, 'transfer.reverted')).toEqual(['transfer.reverted']);
    },
  );

  it.skipIf(reversal !== undefined)(
    titled('a reversal that takes a funded invoice below its amount before its payout is broadcast puts it back to open and cancels the payout (LEDGER "Reversals")', reversal),
    async () => {
      const invoice = await openInvoice(h, usd(10));
      // Live families: a fee payer without funds keeps the payout from being broadcast.
      await h.feePayer?.drain();
      const payment = await h.pay(invoice, usd(10));
      await h.advance();
      expect(await status(h, invoice)).toBe('funded');
      const [payout] = await payoutsOf(h, invoice.id);
      expect(['scheduled', 'waiting_gas']).toContain(payout?.status); // not broadcast

      await h.reverse(payment);
      expect(await status(h, invoice)).toBe('open');
      expect(await received(h, invoice)).toBe(0n);
      expect(await payoutsOf(h, invoice.id)).toEqual([{ id: payout?.id, status: 'cancelled' }]);
      expect(await eventTypes(h, invoice.id, 'payout.')).toEqual([]);
      expect(await eventTypes(h, invoice.id, 'transfer.reverted')).toEqual(['transfer.reverted']);
      await h.feePayer?.fund();
      await h.advance();
      expect(await payoutsOf(h, invoice.id)).toEqual([{ id: payout?.id, status: 'cancelled' }]);
      if (h.onChain !== undefined) expect(await h.onChain.sweepsOf(invoice.address)).toBe(0);
    },
  );

  for (const point of KILL_POINTS) {
    const reason = skipReason(spec, 'one-sweep') ?? (spec.killPoints.includes(point) ? undefined : `its sender cannot be stopped ${point}`);
    it.skipIf(reason !== undefined)(
      titled(`one sweep per payout when the sender is killed ${point}, then restarted: one sweep on chain, the payout confirmed once (ARCHITECTURE "Chains": signed and stored before broadcast)`, reason),
      async () => {
        const { sender, onChain } = h;
        if (sender === undefined || onChain === undefined) throw new Error(`${spec.name} lists kill points but has no sender control or chain view`);
        const invoice = await openInvoice(h, usd(10));
        await sender.killAt(point);
        await h.pay(invoice, usd(10));
        await h.advance(); // confirmed, funded: the dying sender is asked for the sweep
        expect(await status(h, invoice)).toBe('funded');
        expect(await eventTypes(h, invoice.id, 'payout.')).toEqual([]); // the dead sender reported nothing
        // What was never stored cannot be on chain. A stored transaction may already be: the
        // chain side's other jobs (the payout tracker) outlive the sender and broadcast it.
        if (point === 'after-sign') expect(await onChain.sweepsOf(invoice.address)).toBe(0);
        else expect(await onChain.sweepsOf(invoice.address)).toBeLessThanOrEqual(1);

        await sender.restart();
        await h.closeInvoice(invoice);
        expect(await status(h, invoice)).toBe('settled');
        await h.advance(); // and later polls send nothing more
        expect(await onChain.sweepsOf(invoice.address)).toBe(1);
        expect(await onChain.balanceOf(invoice.shop.recipient)).toBe(usd(10) - fee(usd(10)));
        expect(await onChain.balanceOf(invoice.address)).toBe(0n);
        expect(await payoutsOf(h, invoice.id)).toMatchObject([{ status: 'confirmed' }]);
        expect(await eventTypes(h, invoice.id)).toEqual([
          ...(h.observesBeforeConfirming ? ['transfer.observed'] : []),
          'transfer.confirmed',
          'payout.sent',
          'payout.confirmed',
          'invoice.closed',
        ]);
      },
      60_000,
    );
  }

  const gasWait = skipReason(spec, 'gas-wait');
  it.skipIf(gasWait !== undefined)(
    titled('a fee payer without funds parks the payout in gas.wait (no webhook, no sweep); once funded it is paid (SPEC "Events": a gas delay is not payout.failed)', gasWait),
    async () => {
      const { feePayer, onChain } = h;
      if (feePayer === undefined || onChain === undefined) throw new Error(`${spec.name} runs the gas case but has no fee payer control or chain view`);
      const invoice = await openInvoice(h, usd(10));
      await feePayer.drain();
      await h.pay(invoice, usd(10));
      await h.advance();
      await h.advance();
      expect(await status(h, invoice)).toBe('funded');
      expect(await payoutsOf(h, invoice.id)).toMatchObject([{ status: 'waiting_gas' }]);
      expect(await eventTypes(h, invoice.id, 'payout.')).toEqual([]);
      expect(await onChain.sweepsOf(invoice.address)).toBe(0);

      await feePayer.fund();
      // Promptly: the next poll sends it, not the gas retry delay (issue 22 item 2).
      await h.advance();
      expect(await eventTypes(h, invoice.id, 'payout.')).toContain('payout.sent');
      await h.closeInvoice(invoice);
      expect(await status(h, invoice)).toBe('settled');
      expect(await onChain.sweepsOf(invoice.address)).toBe(1);
      expect(await onChain.balanceOf(invoice.shop.recipient)).toBe(usd(10) - fee(usd(10)));
      expect(await payoutsOf(h, invoice.id)).toMatchObject([{ status: 'confirmed' }]);
      expect(await eventTypes(h, invoice.id, 'payout.')).toEqual(['payout.sent', 'payout.confirmed']);
    },
    60_000,
  );

  const late = skipReason(spec, 'late');
  it.skipIf(late !== undefined)(
    titled('a transfer after settlement is a late transfer: recorded and counted in received, never swept (SPEC "What the service does", LEDGER "Invoices")', late),
    async () => {
      const invoice = await openInvoice(h, usd(10));
      await h.pay(invoice, usd(10));
      await h.advance();
      await h.closeInvoice(invoice);
      expect(await status(h, invoice)).toBe('settled');
      const eventsBefore = await eventTypes(h, invoice.id);

      await h.pay(invoice, usd(5));
      await h.advance();
      await h.advance();
      expect(await status(h, invoice)).toBe('settled');
      expect(await received(h, invoice)).toBe(usd(15));
      const transfers = byAmount(await transfersOf(h, invoice.id));
      expect(transfers.map((transfer) => [transfer.amount, transfer.status, transfer.disposition])).toEqual([
        [usd(10), 'confirmed', 'credited'],
        [usd(5), 'confirmed', 'late'],
      ]);
      expect(transfers[1]?.payout_id).toBeNull();
      expect(await payoutsOf(h, invoice.id)).toHaveLength(1);
      // Only the late transfer's own events were added: no payout, no second close.
      const added = (await eventTypes(h, invoice.id)).slice(eventsBefore.length);
      expect(added).toEqual([...(h.observesBeforeConfirming ? ['transfer.observed'] : []), 'transfer.confirmed']);
      if (h.onChain !== undefined) {
        expect(await h.onChain.sweepsOf(invoice.address)).toBe(1);
        expect(await h.onChain.balanceOf(invoice.address)).toBe(usd(5)); // stays at the address
        expect(await h.onChain.balanceOf(invoice.shop.recipient)).toBe(usd(10) - fee(usd(10)));
      }
    },
    60_000,
  );

  const cancelledPaid = skipReason(spec, 'cancelled-paid');
  it.skipIf(cancelledPaid !== undefined)(
    titled('a transfer to a cancelled (or expired) invoice is not late: credited and paid out, its payout events carrying invoice_cancelled: true (LEDGER "Cancellation and expiry")', cancelledPaid),
    async () => {
      const invoice = await openInvoice(h, usd(20));
      const cancel = await h.app.request({ method: 'POST', url: `/api/v1/shops/${invoice.shop.shopId}/invoices/${invoice.id}/cancel`, headers: authed(invoice.shop.apiKey, newIdempotencyKey()) });
      expect(cancel.statusCode, cancel.body).toBe(200);
      await h.pay(invoice, usd(20));
      await h.advance();
      expect(await status(h, invoice)).toBe('funded');
      expect(await received(h, invoice)).toBe(usd(20));
      expect((await transfersOf(h, invoice.id)).map((transfer) => [transfer.amount, transfer.disposition])).toEqual([[usd(20), 'credited']]);
      expect(await payoutsOf(h, invoice.id)).toHaveLength(1);
      if (h.onChain !== undefined) {
        await h.closeInvoice(invoice);
        expect(await h.onChain.sweepsOf(invoice.address)).toBe(1);
        expect(await h.onChain.balanceOf(invoice.shop.recipient)).toBe(usd(20) - fee(usd(20)));
        const payoutEvents = (await eventsOf(h, invoice.id)).filter((event) => event.type.startsWith('payout.'));
        expect(payoutEvents.map((event) => event.type)).toEqual(['payout.sent', 'payout.confirmed']);
        for (const event of payoutEvents) expect(event.data.invoice_cancelled).toBe(true);
      }
    },
    60_000,
  );
});
