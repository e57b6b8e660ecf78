import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import {
  decodeQr,
  firstContentfulPaint,
  launchChromium,
  openPage,
  screenshot,
  seriousViolations,
  type WatchedPage,
} from '../support/browser.js';
import { createOwnerWithShop } from '../support/factories.js';
import { freePort } from '../support/local-server.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  cancel,
  createDeposit,
  createInvoice,
  openInvoice,
  pay,
  setEnabled,
  simulate,
  usdc,
} from '../api/issuances-helpers.js';

// Issue 12: the hosted payment page as a payer meets it, in Debian's Chromium against a
// running Ivory (sandbox shops, moved through the sandbox API): one test per state, the
// QR decoded, live updates without reload, English and Russian, dark mode, axe-core.

let app: TestApp;
let origin: string;
let browser: Browser;
const opened: WatchedPage[] = [];
const screenshots: Record<string, string> = {};

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  app = await createTestApp({ PUBLIC_URL: origin });
  await app.server.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
});
afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await app?.close();
  process.stdout.write(`payment page screenshots (test-results/): ${JSON.stringify(screenshots, null, 2)}\n`);
});

async function visit(publicId: string, options: Parameters<typeof openPage>[2] = {}): Promise<WatchedPage> {
  const watched = await openPage(browser, origin, options);
  opened.push(watched);
  const response = await watched.page.goto(`${origin}/pay/${publicId}`);
  expect(response).not.toBeNull();
  return watched;
}

/** What every screen must satisfy: no CSP violation or script error, nothing fetched from elsewhere, no serious axe finding. */
async function expectClean(watched: WatchedPage, state: string): Promise<void> {
  expect((await seriousViolations(watched.page)).join('\n')).toBe('');
  expect(watched.problems.join('\n')).toBe('');
  expect(watched.foreignRequests.join('\n')).toBe('');
  screenshots[state] = await screenshot(watched.page, state);
}

const statusText = (page: Page) => page.locator('#status h2').innerText();
const LIVE = { timeout: 30_000 };

async function owner() {
  const created = await createOwnerWithShop(app.context.db);
  return { token: created.key.token, shopId: created.shop.id };
}

describe('hosted payment page in Chromium (issue 12)', () => {
  it('preparing the address: says so, then turns into the payable page without a reload', async () => {
    const shop = await owner();
    const created = await createInvoice(app, shop.token, shop.shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) });
    const watched = await visit(created.json().public_id);
    const { page } = watched;
    expect(await statusText(page)).toBe('Preparing the payment address…');
    await expectClean(watched, 'preparing');

    await page.evaluate(`window.marker = 'same document'`);
    await app.jobs.drain();
    await page.locator('#copy').waitFor(LIVE);
    expect(await statusText(page)).toBe('Waiting for payment');
    expect(await page.evaluate<string>('window.marker')).toBe('same document');
  });

  it('awaiting payment: QR decodes to the EIP-681 request, copy works, countdown in local time; page weight and first paint', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(1250.5), { expires_in: '1d' });
    const watched = await visit(invoice.public_id, { permissions: ['clipboard-read', 'clipboard-write'] });
    const { page } = watched;
    expect(await statusText(page)).toBe('Waiting for payment');
    expect(await page.locator('.amount').innerText()).toBe('1,250.5 USDC');

    const uri = `ethereum:${BASE_USDC}@${BASE}/transfer?address=${invoice.address}&uint256=1250500000`;
    expect(await decodeQr(page, '#qr-code')).toBe(uri);
    expect(await page.locator('#open-wallet').getAttribute('href')).toBe(uri);
    // No injected wallet here: the browser-wallet button stays hidden.
    expect(await page.locator('#wallet').isHidden()).toBe(true);

    await page.locator('#copy').click();
    await expect.poll(() => page.locator('#copy').innerText()).toBe('Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(invoice.address);

    await expect.poll(() => page.locator('#left').innerText()).toMatch(/^\(\d+:\d\d:\d\d left\)$/);
    expect(await page.locator('#expires').innerText()).not.toContain('UTC');

    await expectClean(watched, 'awaiting');

    // Weight: the document carries all of its CSS and JS inline; nothing else is fetched.
    const fresh = await visit(invoice.public_id);
    const response = await fresh.page.request.get(`${origin}/pay/${invoice.public_id}`);
    const weight = (await response.body()).byteLength;
    const paint = await firstContentfulPaint(fresh.page);
    process.stdout.write(`payment page: first contentful paint ${paint.toFixed(0)} ms on loopback; weight ${weight} bytes (HTML with inline CSS and JS, uncompressed)\n`);
    expect(fresh.foreignRequests).toEqual([]);
    expect(weight).toBeLessThan(60 * 1024);
  });

  it('copy falls back to a selection copy where the Clipboard API is absent', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(3));
    const watched = await openPage(browser, origin);
    opened.push(watched);
    await watched.page.addInitScript(`Object.defineProperty(navigator, 'clipboard', { value: undefined })`);
    await watched.page.goto(`${origin}/pay/${invoice.public_id}`);
    await watched.page.locator('#copy').click();
    await expect.poll(() => watched.page.locator('#copy').innerText()).toMatch(/^(Copied|Selected: press Ctrl\+C or ⌘C to copy)$/);
    expect(watched.problems).toEqual([]);
  });

  it('partly paid, then payment received: received and remaining update in place, "Copied" and scroll stay, QR asks for the rest', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(10));
    const watched = await visit(invoice.public_id, { permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 390, height: 500 } });
    const { page } = watched;
    await page.locator('#copy').click();
    await expect.poll(() => page.locator('#copy').innerText()).toBe('Copied');
    await page.evaluate('window.scrollTo(0, 200)');

    await pay(app, shop.token, shop.shopId, invoice.id, usdc(4));
    await page.locator('#remaining').waitFor(LIVE);
    expect(await statusText(page)).toBe('Partly paid');
    expect(await page.locator('#remaining').innerText()).toBe('6 USDC');
    expect(await page.locator('#copy').innerText()).toBe('Copied');
    expect(await page.evaluate<number>('window.scrollY')).toBe(200);
    expect(await decodeQr(page, '#qr-code')).toBe(`ethereum:${BASE_USDC}@${BASE}/transfer?address=${invoice.address}&uint256=6000000`);
    await expectClean(watched, 'partial');

    await pay(app, shop.token, shop.shopId, invoice.id, usdc(6));
    await expect.poll(() => statusText(page), LIVE).toBe('Payment received. Thank you!');
    expect(await page.locator('#copy').count()).toBe(0);
    await expectClean(watched, 'funded');
  });

  it('settled: a receipt with the amount received, the transaction hash and the time; polling stops', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(10));
    await pay(app, shop.token, shop.shopId, invoice.id, usdc(10));
    const watched = await visit(invoice.public_id);
    const { page } = watched;
    expect(await page.evaluate<string>('document.body.dataset.final')).toBe('no');
    expect((await simulate(app, shop.token, shop.shopId, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' })).statusCode).toBe(200);
    await expect.poll(() => statusText(page), LIVE).toBe('Payment complete');
    expect(await page.locator('#receipt').innerText()).toContain('10 USDC');
    expect(await page.locator('#tx-hash').innerText()).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await page.locator('#receipt time').innerText()).not.toContain('UTC');
    expect(await page.evaluate<string>('document.body.dataset.final')).toBe('yes');
    await expectClean(watched, 'settled');
  });

  it('cancelled by the merchant: closed, says not to send funds, no address', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(10));
    const watched = await visit(invoice.public_id);
    expect((await cancel(app, shop.token, shop.shopId, invoice.id)).statusCode).toBe(200);
    await expect.poll(() => statusText(watched.page), LIVE).toBe('Closed: this checkout was cancelled by the merchant. Do not send funds.');
    expect(await watched.page.locator('#address').count()).toBe(0);
    expect(await watched.page.locator('#qr-code').count()).toBe(0);
    await expectClean(watched, 'cancelled');
  });

  it('expired: told apart from a cancel, says not to send funds', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(10), { expires_in: '1d' });
    const watched = await visit(invoice.public_id);
    app.clock.advance(86_400_000);
    await app.jobs.drain();
    await expect.poll(() => statusText(watched.page), LIVE).toBe('Closed: this checkout has expired. Do not send funds.');
    expect(await watched.page.locator('#address').count()).toBe(0);
    await expectClean(watched, 'expired');
  });

  it('deposit: open for any amount, then paused (closed, do not send funds)', async () => {
    const shop = await owner();
    const created = await createDeposit(app, shop.token, shop.shopId, { chain_id: BASE, token: BASE_USDC });
    const deposit = created.json();
    await app.jobs.drain();
    const watched = await visit(deposit.public_id);
    expect(await statusText(watched.page)).toBe('Open for payments');
    expect(await decodeQr(watched.page, '#qr-code')).toMatch(new RegExp(`^ethereum:${BASE_USDC}@${BASE}/transfer\\?address=0x[0-9a-fA-F]{40}$`));
    await expectClean(watched, 'deposit-open');
    await setEnabled(app, shop.token, shop.shopId, deposit.id, false);
    await expect.poll(() => statusText(watched.page), LIVE).toBe('Closed: this address is paused. Do not send funds.');
    await expectClean(watched, 'paused');
  });

  it('a group: the picker names the token; an option paid with another option is closed', async () => {
    const shop = await owner();
    const created = await createInvoice(app, shop.token, shop.shopId, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '7.25',
    });
    const group = created.json();
    await app.jobs.drain();
    const picker = await visit(group.public_id);
    expect(await picker.page.locator('#options .label').innerText()).toBe('Pay 7.25 USDC with one of');
    await expectClean(picker, 'group');

    const [first, second] = group.options as { id: string; public_id: string }[];
    const other = await visit(second!.public_id);
    await pay(app, shop.token, shop.shopId, first!.id, '7250000');
    await expect.poll(() => statusText(other.page), LIVE).toBe('Closed: this invoice was paid with another option. Do not send funds here.');
    await expectClean(other, 'paid-elsewhere');
    await expect.poll(() => statusText(picker.page), LIVE).toBe('Payment received. Thank you!');
  });

  it('Russian from Accept-Language, in dark mode; the switch back to English sticks', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(1250.5));
    const watched = await visit(invoice.public_id, { locale: 'ru-RU', extraHTTPHeaders: { 'accept-language': 'ru-RU,ru;q=0.9' }, colorScheme: 'dark' });
    const { page } = watched;
    expect(await page.locator('html').getAttribute('lang')).toBe('ru');
    expect(await statusText(page)).toBe('Ожидаем оплату');
    expect(await page.locator('.amount').innerText()).toBe('1\u00a0250,5 USDC');
    // Dark colours from prefers-color-scheme.
    expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(12, 10, 9)');
    await expectClean(watched, 'awaiting-ru-dark');

    await page.locator('nav a[lang="en"]').click();
    await expect.poll(() => statusText(page)).toBe('Waiting for payment');
    await page.goto(`${origin}/pay/${invoice.public_id}`);
    expect(await statusText(page)).toBe('Waiting for payment');
  });

  it('from 320 px wide: nothing overflows sideways, the address wraps in groups', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(9999.99));
    const watched = await visit(invoice.public_id, { viewport: { width: 320, height: 640 } });
    const { page } = watched;
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    const box = await page.locator('main').boundingBox();
    expect(box!.x).toBeGreaterThan(0);
    expect(box!.x + box!.width).toBeLessThan(320);
    expect(await page.locator('#address span').count()).toBe(Math.ceil(invoice.address.length / 4));
    await expectClean(watched, 'awaiting-320px');
  });

  it('keyboard: Tab reaches the copy button and Enter copies', async () => {
    const shop = await owner();
    const invoice = await openInvoice(app, shop.token, shop.shopId, usdc(5));
    const watched = await visit(invoice.public_id, { permissions: ['clipboard-read', 'clipboard-write'] });
    const { page } = watched;
    for (let step = 0; step < 12; step += 1) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate<string | undefined>('document.activeElement?.id')) === 'copy') break;
    }
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('copy');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#copy').innerText()).toBe('Copied');
  });

  it('an unknown public id: a 404 page in the same design', async () => {
    const watched = await openPage(browser, origin);
    opened.push(watched);
    const response = await watched.page.goto(`${origin}/pay/AAAAAAAAAAAAAAAA`);
    expect(response!.status()).toBe(404);
    expect(await watched.page.locator('h1').innerText()).toBe('Payment not found');
    await expectClean(watched, 'not-found');
  });
});
