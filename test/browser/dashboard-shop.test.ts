import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { launchChromium, openPage, type WatchedPage } from '../support/browser.js';
import { inBothThemes } from '../support/dashboard.js';
import { createOwnerWithShop } from '../support/factories.js';
import { freePort } from '../support/local-server.js';

// Issue 25, Shops: one shop's settings — payout recipient and delegate (what changes for
// existing invoices said), payout targets, the Tron and Solana recipients with their
// immutability explained, branding, and the terms read-only — every refusal the API's own.

let app: TestApp;
let origin: string;
let browser: Browser;
let watched: WatchedPage;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
const screenshots: string[] = [];
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
});
afterAll(async () => {
  await watched?.context.close();
  await browser?.close();
  await app?.close();
  process.stdout.write(`dashboard shop screenshots (test-results/): ${JSON.stringify(screenshots)}\n`);
});

describe('shop settings in Chromium (issue 25)', () => {
  it('shows the terms, saves a delegate and branding, and shows refusals next to their field', async () => {
    const { page } = watched;
    await page.goto(`${origin}/dashboard/shops`);
    await page.locator('#shops-table tbody a').first().click();
    await page.waitForURL(`${origin}/dashboard/shops/${owner.shop.id}`);
    await expect.poll(() => page.locator('#terms-table tbody tr').count(), LIVE).toBeGreaterThan(0);
    expect(await page.locator('#terms-table tbody').innerText()).toMatch(/%/);

    const payout = page.locator('form#payout');
    await payout.getByLabel('Delegate (optional EVM settlement wallet you control)').fill('not-an-address');
    await payout.getByRole('button', { name: 'Save payout settings' }).click();
    await expect.poll(() => page.locator('#payout-delegate-error').innerText()).toBe('This is not a valid address.');
    watched.problems.length = 0; // the refused call's 400, logged by Chromium: expected
    await payout.getByLabel('Delegate (optional EVM settlement wallet you control)').fill('0x2222222222222222222222222222222222222222');
    await payout.getByRole('button', { name: 'Save payout settings' }).click();
    await page.locator('#shop-saved').waitFor({ state: 'visible' });
    const shop = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}`, headers: { authorization: `Bearer ${owner.session.token}` } });
    expect(shop.json<{ delegate: string }>().delegate.toLowerCase()).toBe('0x2222222222222222222222222222222222222222');

    const tron = page.locator('form#tron-recipient');
    expect(await tron.innerText()).toContain('cannot be changed');
    await tron.getByLabel('Tron recipient').fill('T-not-base58');
    await tron.getByRole('button', { name: 'Set recipient' }).click();
    await expect.poll(() => page.locator('#tron-recipient-address-error').innerText()).not.toBe('');
    watched.problems.length = 0;

    await page.locator('form#branding').getByLabel('Name shown to payers').fill('Acme Beans');
    await page.locator('form#branding').getByRole('button', { name: 'Save branding' }).click();
    await expect.poll(() => page.locator('form#branding').getByLabel('Name shown to payers').inputValue()).toBe('');
    await inBothThemes(watched, 'shop-settings', screenshots);
  });

  it('creating a live shop: a bad recipient is refused next to its field; a good one lists the shop as Live', async () => {
    const { page } = watched;
    await page.goto(`${origin}/dashboard/shops`);
    const form = page.locator('form#shop');
    await form.getByLabel('Name', { exact: true }).fill('Acme live');
    await form.getByLabel('Mode').selectOption('false');
    await form.getByLabel('Payout recipient (EVM address)').fill('0x123');
    await form.getByRole('button', { name: 'Create shop' }).click();
    await expect.poll(() => page.locator('#shop-recipient-error').innerText()).toBe('This is not a valid address.');
    watched.problems.length = 0;
    await form.getByLabel('Payout recipient (EVM address)').fill('0x3333333333333333333333333333333333333333');
    await form.getByRole('button', { name: 'Create shop' }).click();
    await expect.poll(() => page.locator('#shops-table tbody').innerText(), LIVE).toMatch(/Acme live\s+Live/);
  });
});
