import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPendingSweeps } from '../../src/payments/index.js';
import { UNSENT_STATUSES } from '../../src/payments/list-pending-sweeps.js';
import { UNSENT_PAYOUT_STATUSES } from '../../src/payouts/payout.js';
import type { TestApp } from '../support/app.js';
import { createOwnerWithShop, createSession, createShop } from '../support/factories.js';
import { BASE, BASE_USDC, createDeposit, createInvoice, read, simulate, usdc } from './issuances-helpers.js';
import { member, sessionPrincipal } from './merchants-helpers.js';
import { createLiveApp, watcherConfirms } from './payouts-helpers.js';

// Issue 25, Overview: "deposits waiting for a sweep" per shop. LEDGER "Deposits": confirmed
// transfers add to the deposit's unswept balance B; when B reaches the shop's sweep threshold
// (Base: 10 USDC) one payout is scheduled. A deposit waits for a sweep while its confirmed money
// is still on its address: B above zero, or a payout scheduled and not yet broadcast. And the
// money received in the last 7 and 30 days per token. Read on the server through the payments
// use cases (decision 0034) and sent with the Overview page.

const SESSION_COOKIE = 'ivory_session';
let app: TestApp;

beforeAll(async () => {
  ({ app } = await createLiveApp());
});
afterAll(async () => {
  await app.close();
});

interface Figure {
  deposits: number;
  amounts: { chain_id: number; token: string; token_decimals: number; amount: string; amount_decimal: string }[];
}

interface Received {
  last_7_days: Figure['amounts'];
  last_30_days: Figure['amounts'];
}

/** The figures the Overview page carries for the person behind `sessionToken`. */
async function overviewData(sessionToken: string): Promise<{ pending_sweeps: Record<string, Figure>; received: Record<string, Received> }> {
  const page = await app.request({ method: 'GET', url: '/dashboard/', headers: { cookie: `${SESSION_COOKIE}=${sessionToken}` } });
  expect(page.statusCode).toBe(200);
  const block = /<script type="application\/json" id="overview-figures">(.*?)<\/script>/.exec(page.body);
  expect(block, 'the overview-figures data block').not.toBeNull();
  return JSON.parse(block?.[1] ?? '{}') as { pending_sweeps: Record<string, Figure>; received: Record<string, Received> };
}

async function overviewFigures(sessionToken: string): Promise<Record<string, Figure>> {
  return (await overviewData(sessionToken)).pending_sweeps;
}

async function liveDeposit(token: string, shopId: string): Promise<{ id: string }> {
  const created = await createDeposit(app, token, shopId, { chain_id: BASE, token: BASE_USDC });
  expect(created.statusCode, created.body).toBe(202);
  return { id: created.json<{ id: string }>().id };
}

describe('Overview figures read on the server: deposits waiting for a sweep (LEDGER "Deposits"), money received (issue 25)', () => {
  it('counts a deposit below the threshold and one whose sweep is scheduled; not a swept one, not an invoice', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: false });
    const token = owner.key.token;
    const [below, queued, swept] = [await liveDeposit(token, owner.shop.id), await liveDeposit(token, owner.shop.id), await liveDeposit(token, owner.shop.id)];
    const invoice = await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(20) });
    expect(invoice.statusCode).toBe(202);
    await app.jobs.drain();
    const address = async (id: string) => (await read(app, token, owner.shop.id, id)).address as string;

    // Nothing has arrived: nothing waits, and the shop is still listed.
    expect((await overviewFigures(owner.session.token))[owner.shop.id]).toEqual({ deposits: 0, amounts: [] });

    // Swept: 12 USDC reaches the threshold, the payout worker broadcasts it; nothing left on the address.
    await watcherConfirms(app, swept.id, await address(swept.id), usdc(12));
    await app.jobs.drain();
    const sweptPayout = await app.context.db.selectFrom('payouts').select('status').where('issuance_id', '=', swept.id).executeTakeFirstOrThrow();
    expect(['sending', 'sent', 'confirmed']).toContain(sweptPayout.status);
    // An invoice paid in full has a scheduled payout too, but it is no deposit.
    const invoiceId = invoice.json<{ id: string }>().id;
    await watcherConfirms(app, invoiceId, await address(invoiceId), usdc(20));
    // Below the threshold: 4 USDC stays as the unswept balance.
    await watcherConfirms(app, below.id, await address(below.id), usdc(4));
    // At the threshold: 12.5 USDC in a payout scheduled and not yet broadcast (no worker ran).
    await watcherConfirms(app, queued.id, await address(queued.id), usdc(12.5));
    const queuedPayout = await app.context.db.selectFrom('payouts').select('status').where('issuance_id', '=', queued.id).executeTakeFirstOrThrow();
    expect(queuedPayout.status).toBe('scheduled');

    const figure = (await overviewFigures(owner.session.token))[owner.shop.id];
    expect(figure).toEqual({
      deposits: 2,
      amounts: [{ chain_id: BASE, token: BASE_USDC, token_decimals: 6, amount: usdc(16.5), amount_decimal: '16.5' }],
    });
  });

  it('a sandbox payout never leaves its address and is not waiting; a sandbox balance below the threshold is', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: true });
    const token = owner.key.token;
    const simulated = await liveDeposit(token, owner.shop.id);
    const below = await liveDeposit(token, owner.shop.id);
    await app.jobs.drain();
    const pay = async (id: string, amount: string) => {
      const answer = await simulate(app, token, owner.shop.id, { issuance_id: id, kind: 'transfer.confirmed', amount });
      expect(answer.statusCode, answer.body).toBeLessThan(300);
    };
    await pay(simulated.id, usdc(15));
    await pay(below.id, usdc(3));
    expect((await overviewFigures(owner.session.token))[owner.shop.id]).toEqual({
      deposits: 1,
      amounts: [{ chain_id: BASE, token: BASE_USDC, token_decimals: 6, amount: usdc(3), amount_decimal: '3' }],
    });
  });

  it('shows only the shops the person may read: every shop for a merchant-wide grant, the one shop of a shop grant, none of another merchant', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: true });
    const second = await createShop(app.context.db, owner.merchant.id, { sandbox: false, name: 'Second' });
    const stranger = await createOwnerWithShop(app.context.db, { sandbox: true });
    const ownerView = await overviewFigures(owner.session.token);
    expect(Object.keys(ownerView).sort()).toEqual([owner.shop.id, second.id].sort());
    expect(ownerView[stranger.shop.id]).toBeUndefined();
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer', second.id);
    expect(Object.keys(await overviewFigures(viewer.token))).toEqual([second.id]);
  });

  it('received in the last 7 and 30 days: confirmed incoming transfers per token over the whole history, not a page of it; observed and reverted ones are not money received', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: true });
    const token = owner.key.token;
    const invoice = await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(5000) });
    const id = invoice.json<{ id: string }>().id;
    await app.jobs.drain();
    const pay = async (amount: string) => {
      const answer = await simulate(app, token, owner.shop.id, { issuance_id: id, kind: 'transfer.confirmed', amount });
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      return answer.json<{ event_id?: string; id?: string }>();
    };
    // 20 days ago: in the 30 days, not the 7.
    await pay(usdc(100));
    app.clock.advance(13 * 86_400_000);
    // 7 days ago and later: 120 transfers of 1 USDC, more than the 100 a page of the list holds.
    for (let index = 0; index < 120; index += 1) await pay(usdc(1));
    app.clock.advance(7 * 86_400_000 - 60_000);
    // The clock moved 20 days: a session of today's clock.
    const session = await createSession(app.context.db, owner.user.id, { expiresAt: new Date(app.clock.now().getTime() + 3_600_000) });
    const received = (await overviewData(session.token)).received[owner.shop.id];
    const usdcOf = (amount: number) => [{ chain_id: BASE, token: BASE_USDC, token_decimals: 6, amount: usdc(amount), amount_decimal: String(amount) }];
    expect(received).toEqual({ last_7_days: usdcOf(120), last_30_days: usdcOf(220) });
    // Rows the ledger keeps but that are not received money change nothing.
    await app.context.db.updateTable('transfers').set({ status: 'reverted' }).where('issuance_id', '=', id).where('amount', '=', usdc(100)).execute();
    const one = await app.context.db.selectFrom('transfers').select('id').where('issuance_id', '=', id).where('amount', '=', usdc(1)).executeTakeFirstOrThrow();
    await app.context.db.updateTable('transfers').set({ status: 'observed' }).where('id', '=', one.id).execute();
    expect((await overviewData(session.token)).received[owner.shop.id]).toEqual({ last_7_days: usdcOf(119), last_30_days: usdcOf(119) });
  });

  it('the use case refuses a shop the person may not read with the access gate\'s code, and reads nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db, { sandbox: true });
    const stranger = await createOwnerWithShop(app.context.db, { sandbox: true });
    await expect(listPendingSweeps(app.context.db, sessionPrincipal(owner.user.id), [owner.shop.id, stranger.shop.id])).rejects.toMatchObject({ code: 'shop_not_found' });
  });

  it('waits on exactly the payout statuses in which nothing has left the address (the payouts module\'s unsent statuses)', () => {
    expect([...UNSENT_STATUSES].sort()).toEqual([...UNSENT_PAYOUT_STATUSES].sort());
  });
});
