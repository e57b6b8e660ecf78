import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { launchChromium, openPage, type WatchedPage } from '../support/browser.js';
import { navigate } from '../support/dashboard.js';
import { createOwnerWithShop, createSession, createUser } from '../support/factories.js';
import { newId } from '../../src/platform/crypto.js';
import { freePort } from '../support/local-server.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, createDeposit, createInvoice, simulate, usdc } from '../api/issuances-helpers.js';
import { registerEndpoint } from '../api/webhooks-helpers.js';

// Issue 25, Invoices and Developers beyond the first-day journey: the list's filters and
// pages, a partial payment and its reversal, cancelling, pausing a deposit, a key disabled and
// revoked, a delivery replayed, the CSV export. Invoices are made through the API with the
// shop's key; the owner works in the browser with a cookie session.

let app: TestApp;
let origin: string;
let browser: Browser;
let watched: WatchedPage;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
const LIVE = { timeout: 20_000 };

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  app = await createTestApp({ PUBLIC_URL: origin });
  await app.server.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
  owner = await createOwnerWithShop(app.context.db);
  watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
  await watched.context.addCookies([{ name: 'ivory_session', value: owner.session.token, url: origin }]);
  // Confirmations are the person saying yes.
  watched.page.on('dialog', (dialog) => void dialog.accept());
});
afterAll(async () => {
  await watched?.context.close();
  await browser?.close();
  await app?.close();
});

/** Through the API by the owner's bearer session (the key is revoked in the last test). */
async function invoice(amount: number, externalId: string): Promise<string> {
  const response = await createInvoice(app, owner.session.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(amount), external_id: externalId });
  expect(response.statusCode, response.body).toBe(202);
  return response.json<{ id: string }>().id;
}

/** A new deposit paid 1 USDC `count` times, a second apart (sandbox simulations): its id. */
async function depositPaidTimes(count: number): Promise<string> {
  const deposit = (await createDeposit(app, owner.session.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json<{ id: string }>().id;
  await app.jobs.drain();
  for (let index = 0; index < count; index += 1) {
    app.clock.advance(1000);
    const paid = await simulate(app, owner.session.token, owner.shop.id, { issuance_id: deposit, kind: 'transfer.confirmed', amount: usdc(1) });
    expect(paid.statusCode, paid.body).toBe(200);
  }
  return deposit;
}

const status = (page: Page) => page.locator('#invoice-status').innerText();
const rows = (page: Page, table: string) => page.locator(`#${table} tbody tr`).count();

describe('invoices and developers in Chromium (issue 25)', () => {
  it('lists 20 a page with a next page, and filters by external id and status', async () => {
    for (let index = 1; index <= 24; index += 1) await invoice(index, `order-${index}`);
    await app.jobs.drain();
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices`);
    await expect.poll(() => rows(page, 'invoices-table'), LIVE).toBe(20);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => rows(page, 'invoices-table')).toBe(24);
    expect(await page.getByRole('button', { name: 'Next page' }).isVisible()).toBe(false);

    await page.getByText('Apply filters', { exact: true }).first().click();
    await page.locator('form#filters').getByLabel('External id (order number)').fill('order-7');
    await page.locator('form#filters').getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/external_id=order-7/);
    await expect.poll(() => page.locator('#invoices-table tbody').innerText(), LIVE).toContain('7 USDC');
    expect(await rows(page, 'invoices-table')).toBe(1);
    expect(await page.locator('form#filters').getByLabel('External id (order number)').inputValue()).toBe('order-7');

    await page.goto(`${origin}/dashboard/invoices?status=settled`);
    await expect.poll(() => page.locator('[data-empty-for="invoices-table"]').isVisible(), LIVE).toBe(true);
  });

  it('a partial payment, its reversal, then cancelling the invoice', async () => {
    const id = await invoice(30, 'partial-1');
    await app.jobs.drain();
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices/${id}?shop=${owner.shop.id}`);
    await expect.poll(() => status(page), LIVE).toBe('Open');
    await page.getByLabel('Amount to simulate').fill('10');
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await expect.poll(() => page.locator('#invoice-facts').innerText(), LIVE).toMatch(/Received\s+10 USDC/);
    expect(await status(page)).toBe('Open');
    await page.getByRole('button', { name: 'Simulate reversal' }).click();
    await expect.poll(() => page.locator('#invoice-facts').innerText(), LIVE).toMatch(/Received\s+0 USDC/);
    await page.getByRole('button', { name: 'Cancel invoice' }).click();
    await expect.poll(() => status(page), LIVE).toBe('Cancelled');
    expect(await page.getByRole('button', { name: 'Cancel invoice' }).isVisible()).toBe(false);
  });

  it('shows times in the person’s time zone', async () => {
    const id = await invoice(3, 'tokyo');
    const tokyo = await openPage(browser, origin, { timezoneId: 'Asia/Tokyo', locale: 'en-US' });
    await tokyo.context.addCookies([{ name: 'ivory_session', value: owner.session.token, url: origin }]);
    try {
      await tokyo.page.goto(`${origin}/dashboard/invoices/${id}?shop=${owner.shop.id}`);
      const created = tokyo.page.locator('#invoice-facts time').last();
      await created.waitFor(LIVE);
      const iso = (await created.getAttribute('datetime')) ?? '';
      const expected = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(new Date(iso));
      const spaces = (text: string) => text.replace(/\s/g, ' ');
      expect(spaces(await created.innerText())).toBe(spaces(expected));
    } finally {
      await tokyo.context.close();
    }
  });

  it('pauses and enables a deposit', async () => {
    const created = await createDeposit(app, owner.session.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    const id = created.json<{ id: string }>().id;
    await app.jobs.drain();
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices/${id}?shop=${owner.shop.id}`);
    await page.getByRole('button', { name: 'Pause deposit' }).click();
    await page.getByRole('button', { name: 'Enable deposit' }).waitFor(LIVE);
    await page.getByRole('button', { name: 'Enable deposit' }).click();
    await page.getByRole('button', { name: 'Pause deposit' }).waitFor(LIVE);
  });

  it('Overview: a deposit holding 3 USDC below the 10 USDC sweep threshold is a deposit waiting for a sweep (LEDGER "Deposits")', async () => {
    const created = await createDeposit(app, owner.session.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    const id = created.json<{ id: string }>().id;
    await app.jobs.drain();
    const paid = await simulate(app, owner.session.token, owner.shop.id, { issuance_id: id, kind: 'transfer.confirmed', amount: usdc(3) });
    expect(paid.statusCode, paid.body).toBeLessThan(300);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/`);
    await expect.poll(() => page.locator('#overview-cards').innerText(), LIVE).toContain('Deposits waiting for a sweep: 1 (3 USDC)');
    await page.goto(`${origin}/dashboard/?lang=ru`);
    await expect.poll(() => page.locator('#overview-cards').innerText(), LIVE).toContain('Депозиты, ожидающие вывода средств: 1 (3 USDC)');
    await page.goto(`${origin}/dashboard/?lang=en`);
  });

  it('creates a deposit from the screen: no amount, no expiry', async () => {
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices`);
    await page.getByText('Create an invoice').click();
    const form = page.locator('form#invoice');
    await form.getByLabel('Kind').selectOption('deposit');
    expect(await form.getByLabel('Amount', { exact: true }).isVisible()).toBe(false);
    expect(await form.getByLabel('Expires in').isVisible()).toBe(false);
    await form.getByLabel('Token and network').selectOption(`${BASE}|${BASE_USDC}`);
    await form.getByLabel('External id (order number)').fill('wallet-top-up');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/dashboard\/invoices\/[0-9a-f-]{36}\?shop=/);
    await expect.poll(() => page.locator('#invoice-facts').innerText()).toContain('Deposit');
    await page.getByRole('button', { name: 'Pause deposit' }).waitFor(LIVE);
  });

  it('creates an invoice offered on two networks (SPEC "Invoices and deposits": assets, a decimal amount; the payer chooses one option)', async () => {
    const { page } = watched;
    const groupsBefore = await app.context.db.selectFrom('issuance_groups').select('id').where('shop_id', '=', owner.shop.id).execute();
    await page.goto(`${origin}/dashboard/invoices`);
    await page.getByText('Create an invoice').click();
    const form = page.locator('form#invoice');
    await form.getByLabel('Token and network').selectOption(`${BASE}|${BASE_USDC}`);
    await form.getByRole('group', { name: 'Also offer on (the payer chooses one)' }).getByRole('checkbox', { name: 'USDC · Arbitrum One' }).check();
    // SPEC rule 2: each option must reach its network's minimum_payment (1 on both); nothing is created otherwise.
    await form.getByLabel('Amount', { exact: true }).fill('0.5');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.locator('#invoice-amount-error').innerText(), LIVE).toBe('The amount is below the network minimum.');
    expect(await app.context.db.selectFrom('issuance_groups').select('id').where('shop_id', '=', owner.shop.id).execute()).toHaveLength(groupsBefore.length);
    await form.getByLabel('Amount', { exact: true }).fill('12.5');
    await form.getByLabel('External id (order number)').fill('two-networks');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/dashboard\/invoices\/[0-9a-f-]{36}\?shop=/, LIVE);
    const id = /invoices\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    await expect.poll(() => page.locator('#invoice-facts').innerText(), LIVE).toContain('USDC · Arbitrum One');
    expect(await page.locator('#invoice-facts').innerText()).toContain('USDC · Base');
    const group = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/issuances/${id}`, headers: { authorization: `Bearer ${owner.session.token}` } });
    expect(group.json()).toMatchObject({ id, group: true });
    const options = group.json<{ options: { chain_id: number; token: string; amount: string }[] }>().options.map((option) => [option.chain_id, option.token, option.amount]);
    expect(options.sort()).toEqual([
      [BASE, BASE_USDC, '12500000'],
      [ARBITRUM, ARBITRUM_USDC, '12500000'],
    ].sort());
  });

  it('creating an invoice below what the API accepts shows its refusal next to the amount', async () => {
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices`);
    await page.getByText('Create an invoice').click();
    const form = page.locator('form#invoice');
    await form.getByLabel('Token and network').selectOption(`${BASE}|${BASE_USDC}`);
    await form.getByLabel('Amount', { exact: true }).fill('20000');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.locator('#invoice-amount-error').innerText()).toBe('A sandbox invoice is at most 10,000 tokens.');
    expect(await form.getByLabel('Amount', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Amount', { exact: true }).fill('1.2345678');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.locator('#invoice-amount-error').innerText()).toBe('Enter an amount, for example 10.50.');
  });

  it('a key disabled, enabled and revoked; a delivery replayed; the CSV export', async () => {
    const { page } = watched;
    await navigate(page, 'API keys');
    await expect.poll(() => page.locator('#keys-table tbody').innerText(), LIVE).toContain('Enabled');
    await page.locator('#keys-table').getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.locator('#keys-table tbody').innerText(), LIVE).toContain('Disabled');
    await page.locator('#keys-table').getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.locator('#keys-table tbody').innerText(), LIVE).toContain('Enabled');
    const keyForm = page.locator('form#key');
    await keyForm.getByLabel('Name', { exact: true }).fill('Reporting');
    await keyForm.getByLabel('write (create invoices, manage webhooks)').uncheck();
    await keyForm.getByLabel('Allowed IPs or CIDR ranges (optional, comma-separated)').fill('10.0.0.0/8, 2001:db8::/32');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.locator('#keys-table tbody').innerText(), LIVE).toContain('read · 10.0.0.0/8, 2001:db8::/32');
    const keysBefore = await rows(page, 'keys-table');
    await page.locator('#keys-table').getByRole('button', { name: /^Revoke/ }).first().click();
    await expect.poll(() => rows(page, 'keys-table'), LIVE).toBe(keysBefore - 1);

    await registerEndpoint(app, owner.session.token, owner.shop.id, 'https://hooks.example.com/ivory', ['invoice']);
    await invoice(5, 'to-cancel');
    const id = await invoice(6, 'cancelled-for-hook');
    await app.request({ method: 'POST', url: `/api/v1/shops/${owner.shop.id}/invoices/${id}/cancel`, headers: { authorization: `Bearer ${owner.session.token}`, 'idempotency-key': `cancel-${id}` } });
    await app.jobs.drain();
    await navigate(page, 'Deliveries');
    await expect.poll(() => page.locator('#deliveries-table tbody').innerText(), LIVE).toContain('invoice.cancelled');
    expect(await page.locator('#deliveries-table tbody').innerText()).toMatch(/no answer/);
    await page.locator('#deliveries-table summary').first().click();
    expect(await page.locator('#deliveries-table ol li').first().innerText()).toMatch(/no answer.* · \d+ ms$/);
    await page.locator('#deliveries-table').getByRole('button', { name: 'Replay' }).first().click();
    await expect.poll(() => page.locator('#action-error').innerText()).toBe('');

    await navigate(page, 'Payments');
    const href = (await page.locator('#export-csv').getAttribute('href')) ?? '';
    const csv = (await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`)) as string;
    expect(csv.split('\n')[0]).toContain('id');
    // Issue 25, Payments: the export is exactly what the list shows, once every page of it is shown (SPEC names no filter on either).
    await expect.poll(() => rows(page, 'payments-table'), LIVE).toBeGreaterThan(0);
    while (await page.getByRole('button', { name: 'Next page' }).isVisible()) {
      const before = await rows(page, 'payments-table');
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => rows(page, 'payments-table'), LIVE).toBeGreaterThan(before);
    }
    const records = csv.split('\r\n').filter((line) => line !== '').slice(1).map((line) => line.split(','));
    const shown = await page.locator('#payments-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(shown).toHaveLength(records.length);
    // Newest first on the screen, oldest first in the file: kind and status row for row.
    expect(shown.map((cells) => [cells[1], cells[3]])).toEqual(records.reverse().map((fields) => [fields[0], fields[13]]));
  });

  it('an invoice\'s detail shows all its payments and events whatever their age, page by page (decision 0038: issuance_id)', async () => {
    watched.problems.length = 0;
    const old = await invoice(20, 'old-order');
    await app.jobs.drain();
    for (const amount of [8, 12]) {
      const paid = await simulate(app, owner.session.token, owner.shop.id, { issuance_id: old, kind: 'transfer.confirmed', amount: usdc(amount) });
      expect(paid.statusCode, paid.body).toBe(200);
    }
    // Then more than a hundred newer payments elsewhere: the shop's latest 100 no longer hold the old invoice's.
    const deposit = await depositPaidTimes(105);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/invoices/${old}?shop=${owner.shop.id}`);
    // Two transfers and the (simulated) payout; its events: the two confirmations.
    await expect.poll(() => rows(page, 'transfers-table'), LIVE).toBe(3);
    expect(await page.locator('#transfers-table tbody').innerText()).toMatch(/8 USDC[\s\S]*12 USDC|12 USDC[\s\S]*8 USDC/);
    await expect.poll(() => page.locator('#invoice-events-table tbody').innerText(), LIVE).toContain('transfer.confirmed');
    expect(await page.getByRole('button', { name: 'More transfers and payouts' }).isVisible()).toBe(false);

    const stored = async (table: 'transfers' | 'payouts') => (await app.context.db.selectFrom(table).select('id').where('issuance_id', '=', deposit).execute()).length;
    const expected = (await stored('transfers')) + (await stored('payouts'));
    expect(expected).toBeGreaterThan(100);
    await page.goto(`${origin}/dashboard/invoices/${deposit}?shop=${owner.shop.id}`);
    await expect.poll(() => rows(page, 'transfers-table'), LIVE).toBe(50);
    while (await page.getByRole('button', { name: 'More transfers and payouts' }).isVisible()) {
      const before = await rows(page, 'transfers-table');
      await page.getByRole('button', { name: 'More transfers and payouts' }).click();
      await expect.poll(() => rows(page, 'transfers-table'), LIVE).toBeGreaterThan(before);
    }
    expect(await rows(page, 'transfers-table')).toBe(expected);
    await expect.poll(() => rows(page, 'invoice-events-table'), LIVE).toBe(50);
    await page.getByRole('button', { name: 'More events' }).click();
    await expect.poll(() => rows(page, 'invoice-events-table'), LIVE).toBeGreaterThan(50);
    expect(watched.problems.join('\n')).toBe('');
  });

  it('a viewer sees when the history or the refresh failed to load, and both recover (the error is outside the write controls)', async () => {
    const deposit = await depositPaidTimes(55);
    const viewer = await createUser(app.context.db);
    const session = await createSession(app.context.db, viewer.id);
    await app.context.db.insertInto('grants').values({ id: newId(), merchant_id: owner.merchant.id, user_id: viewer.id, role: 'viewer', shop_id: null }).execute();
    const reader = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
    try {
      await reader.context.addCookies([{ name: 'ivory_session', value: session.token, url: origin }]);
      const { page } = reader;
      const more = page.getByRole('button', { name: 'More transfers and payouts' });
      const historyError = page.locator('#history-error');
      await page.goto(`${origin}/dashboard/invoices/${deposit}?shop=${owner.shop.id}`);
      await expect.poll(() => rows(page, 'transfers-table'), LIVE).toBe(50);
      expect(await page.locator('#invoice-actions').isVisible()).toBe(false); // a viewer: no write controls

      // The next page fails: said where the viewer can see it; then it loads.
      const unavailable = { status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'unavailable', message: 'Try again shortly.' } }) };
      await page.route('**/payments?*cursor=*', (route) => route.fulfill(unavailable));
      await more.click();
      await expect.poll(() => historyError.innerText(), LIVE).not.toBe('');
      expect(await historyError.isVisible()).toBe(true);
      expect(await rows(page, 'transfers-table')).toBe(50);
      await page.unroute('**/payments?*cursor=*');
      await more.click();
      await expect.poll(() => rows(page, 'transfers-table'), LIVE).toBeGreaterThan(50);
      expect(await historyError.innerText()).toBe('');

      // The refresh fails (the server unreachable): said, retried, cleared by the next good answer.
      await page.route(`**/issuances/${deposit}`, (route) => route.abort('connectionrefused'));
      await expect.poll(() => historyError.innerText(), LIVE).not.toBe('');
      await page.unroute(`**/issuances/${deposit}`);
      await expect.poll(() => historyError.innerText(), { timeout: 40_000 }).toBe('');
    } finally {
      await reader.context.close();
    }
  });

  it('Payments filters; the CSV export holds exactly what the filtered list shows (decision 0038)', async () => {
    const { page } = watched;
    await navigate(page, 'Payments');
    await page.getByText('Filters', { exact: true }).click();
    expect(await page.locator('form#filters').isVisible()).toBe(true);
    const filters = page.locator('form#filters');
    await filters.getByLabel('Type').selectOption('transfer');
    await filters.getByLabel('Status').selectOption('confirmed');
    await filters.getByLabel('Token and network').selectOption(`${BASE}|${BASE_USDC}`);
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/type=transfer/);
    await expect.poll(() => rows(page, 'payments-table'), LIVE).toBeGreaterThan(0);
    expect(await filters.getByLabel('Type').inputValue()).toBe('transfer');
    while (await page.getByRole('button', { name: 'Next page' }).isVisible()) {
      const before = await rows(page, 'payments-table');
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => rows(page, 'payments-table'), LIVE).toBeGreaterThan(before);
    }
    const shown = await page.locator('#payments-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(shown.every((cells) => cells[1] === 'transfer' && cells[3] === 'confirmed')).toBe(true);

    const href = (await page.locator('#export-csv').getAttribute('href')) ?? '';
    expect(href).toMatch(/export\.csv\?.*type=transfer/);
    const csv = (await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`)) as string;
    const records = csv.split('\r\n').filter((line) => line !== '').slice(1).map((line) => line.split(','));
    // The same rows, newest first on the screen and oldest first in the file: kind and status row for row.
    expect(records).toHaveLength(shown.length);
    expect(shown.map((cells) => [cells[1], cells[3]])).toEqual(records.reverse().map((fields) => [fields[0], fields[13]]));
    // Fewer than the whole history: the filter did narrow the export.
    const all = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/export.csv`, headers: { authorization: `Bearer ${owner.session.token}` } });
    expect(all.body.split('\r\n').filter((line) => line !== '').length - 1).toBeGreaterThan(records.length);

    // A bad filter from a hand-edited address: the API's refusal, shown by the filters.
    await page.goto(`${origin}/dashboard/payments?status=paid`);
    await expect.poll(() => page.locator('form#filters [data-form-error]').innerText(), LIVE).toMatch(/^invalid_request: must be one of/);
    watched.problems.length = 0;
  });
});
