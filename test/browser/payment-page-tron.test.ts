import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancel } from '../api/issuances-helpers.js';
import { decodeQr, launchChromium, openPage, screenshot, seriousViolations, type WatchedPage } from '../support/browser.js';
import { freePort } from '../support/local-server.js';
import { createTronInvoice, liveTronShop, newTronWallet, payTron, solidifyTron, startTronHarness, tronAdminNetworks, type TronHarness } from '../support/tron-chain.js';

// Issue 23 item 7: the hosted page of a live Tron invoice on the local Tron node, in Chromium:
// the T… address in the QR (what every Tron wallet scans), the TRC-20 token, Tronscan links
// (/#/transaction/…), and each state as real TRC-20 transfers move it.

let chain: TronHarness;
let origin: string;
let browser: Browser;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  chain = await startTronHarness({ env: { PUBLIC_URL: origin } });
  await chain.app.server.listen({ host: '127.0.0.1', port });
  const [network] = await tronAdminNetworks(chain.app);
  await chain.node.fund(network?.relayer_address ?? '', 2_000_000_000n);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await chain?.close();
});

async function visit(publicId: string): Promise<WatchedPage> {
  const watched = await openPage(browser, origin, {});
  opened.push(watched);
  await watched.page.goto(`${origin}/pay/${publicId}`);
  return watched;
}

async function expectClean(watched: WatchedPage, state: string): Promise<void> {
  expect((await seriousViolations(watched.page)).join('\n')).toBe('');
  expect(watched.problems.join('\n')).toBe('');
  expect(watched.foreignRequests.join('\n')).toBe('');
  await screenshot(watched.page, `tron-${state}`);
}

const statusText = (page: Page) => page.locator('#status h2').innerText();
const LIVE = { timeout: 30_000 };

describe('hosted payment page of a live Tron invoice in Chromium', () => {
  it('awaiting (QR of the bare T… address), partly paid, then settled with a Tronscan transaction link', async () => {
    const shop = await liveTronShop(chain.app, newTronWallet());
    const invoice = await createTronInvoice(chain, shop, 10_000_000n);
    const watched = await visit(invoice.public_id);
    const { page } = watched;
    expect(await statusText(page)).toBe('Waiting for payment');
    expect(await page.locator('.amount').innerText()).toBe('10 USDT');
    expect(await decodeQr(page, '#qr-code')).toBe(invoice.address);
    expect(await page.locator('body').innerText()).toContain(invoice.address);
    await expectClean(watched, 'awaiting');

    await payTron(chain, invoice.address, 4_000_000n);
    await solidifyTron(chain, 4);
    await page.locator('#remaining').waitFor(LIVE);
    expect(await statusText(page)).toBe('Partly paid');
    expect(await page.locator('#remaining').innerText()).toBe('6 USDT');
    expect(await decodeQr(page, '#qr-code')).toBe(invoice.address);
    await expectClean(watched, 'partial');

    await payTron(chain, invoice.address, 6_000_000n);
    await solidifyTron(chain, 8);
    await expect.poll(() => statusText(page), LIVE).toBe('Payment complete');
    const txId = await page.locator('#tx-hash').innerText();
    expect(txId).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator('#explorer').getAttribute('href')).toBe(`https://nile.tronscan.org/#/transaction/${txId}`);
    await expectClean(watched, 'settled');
  });

  it('cancelled and expired: closed, no T… address, do not send funds', async () => {
    const shop = await liveTronShop(chain.app, newTronWallet());
    const cancelled = await createTronInvoice(chain, shop, 5_000_000n);
    const expiring = await createTronInvoice(chain, shop, 5_000_000n, { expires_in: '1d' });
    const first = await visit(cancelled.public_id);
    const second = await visit(expiring.public_id);
    expect((await cancel(chain.app, shop.token, shop.shopId, cancelled.id)).statusCode).toBe(200);
    chain.app.clock.advance(86_400_000);
    await chain.app.jobs.drain();
    await expect.poll(() => statusText(first.page), LIVE).toBe('Closed: this checkout was cancelled by the merchant. Do not send funds.');
    await expect.poll(() => statusText(second.page), LIVE).toBe('Closed: this checkout has expired. Do not send funds.');
    expect(await first.page.locator('#address').count()).toBe(0);
    expect(await second.page.locator('#qr-code').count()).toBe(0);
    await expectClean(first, 'cancelled');
    await expectClean(second, 'expired');
  });
});
