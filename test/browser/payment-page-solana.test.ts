import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDepositAddress } from '../../src/chains/solana/solana-keys.repository.js';
import { cancel } from '../api/issuances-helpers.js';
import { authed, newIdempotencyKey } from '../support/app.js';
import { decodeQr, launchChromium, openPage, screenshot, seriousViolations, type WatchedPage } from '../support/browser.js';
import { freePort } from '../support/local-server.js';
import { SOLANA_CHAIN_ID, allocationPasses, fundRelayer, liveSolanaShop, newRecipient, pay, settle, startSolanaHarness, type SolanaHarness } from '../support/solana-chain.js';
import { payWithSolanaPay } from '../support/solana-pay-wallet.js';

// Issue 24 item 7 (decision 0039): the hosted page of a live Solana invoice on the local Solana
// node, in Chromium: a Solana Pay transfer request in the QR code and the wallet link
// (solana:<wallet>?amount=&spl-token=&reference=&label=&message=), the Solana Pay wallet hint,
// the explorer's /tx/ link, and each state as real SPL transfers move it.

let chain: SolanaHarness;
let origin: string;
let browser: Browser;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  chain = await startSolanaHarness();
  await chain.app.server.listen({ host: '127.0.0.1', port });
  await fundRelayer(chain, 2_000_000_000n);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await chain?.close();
});

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));

/** A live shop whose page label is `brand` (the shop's display name). */
async function shopNamed(brand: string) {
  const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
  await chain.app.context.db.updateTable('shops').set({ branding_name: brand }).where('id', '=', shop.shopId).execute();
  return shop;
}

/** Creates a live Solana invoice (or deposit) and lets allocation run: the answer has its address and reference. */
async function issue(shop: { shopId: string; token: string }, kind: 'invoices' | 'deposits', payload: Record<string, unknown>) {
  const created = await chain.app.request({
    method: 'POST',
    url: `/api/v1/shops/${shop.shopId}/${kind}`,
    headers: authed(shop.token, newIdempotencyKey()),
    payload: { chain_id: SOLANA_CHAIN_ID, token: chain.mint, ...payload },
  });
  if (created.statusCode !== 202) throw new Error(`create: ${created.statusCode} ${created.body}`);
  const id = created.json<{ id: string }>().id;
  const readIssuance = () => chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${id}`, headers: authed(shop.token) });
  // The allocation answers pending until the token account's creation is confirmed; a later pass opens it.
  await allocationPasses(chain, async () => (await readIssuance()).json<{ status: string }>().status !== 'registering');
  const read = await readIssuance();
  const issuance = read.json<{ id: string; public_id: string; address: string; status: string }>();
  expect(issuance.status).toBe('open');
  const reference = (await findDepositAddress(chain.app.context.db, id))?.reference;
  if (reference == null) throw new Error(`issuance ${id} has no Solana Pay reference`);
  return { ...issuance, reference };
}

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
  await screenshot(watched.page, `solana-${state}`);
}

const statusText = (page: Page) => page.locator('#status h2').innerText();
const LIVE = { timeout: 30_000 };

describe('hosted payment page of a live Solana invoice in Chromium', () => {
  it('open (Solana Pay QR with the reference), partly paid (the QR asks for the rest), settled with an explorer /tx/ link', async () => {
    const shop = await shopNamed('Café & Co');
    const invoice = await issue(shop, 'invoices', { amount: usd(10).toString(), description: 'Order #42: 2 × tea' });
    const watched = await visit(invoice.public_id);
    const { page } = watched;
    expect(await statusText(page)).toBe('Waiting for payment');
    expect(await page.locator('.amount').innerText()).toBe('10 TUSD');
    // The address shown and copied is the deposit key's wallet, never its token account.
    expect(await page.locator('#copy').getAttribute('data-copy')).toBe(invoice.address);
    const request =
      `solana:${invoice.address}?amount=10&spl-token=${chain.mint}&reference=${invoice.reference}` +
      `&label=Caf%C3%A9%20%26%20Co&message=Order%20%2342%3A%202%20%C3%97%20tea`;
    expect(await decodeQr(page, '#qr-code')).toBe(request);
    expect(await page.locator('#qr-box').getAttribute('data-uri')).toBe(request);
    expect(await page.locator('#open-wallet').getAttribute('href')).toBe(request);
    expect(await page.locator('#scan-hint').innerText()).toContain('Solana Pay wallet');
    expect(await page.locator('#amounts summary').innerText()).toContain('Token mint');
    await expectClean(watched, 'awaiting');

    // A Solana Pay wallet pays part: the transfer carries the reference, and is credited once.
    await payWithSolanaPay(chain, invoice.address, usd(4), invoice.reference);
    await settle(chain, 1);
    await page.locator('#remaining').waitFor(LIVE);
    expect(await statusText(page)).toBe('Partly paid');
    expect(await page.locator('#remaining').innerText()).toBe('6 TUSD');
    expect(await decodeQr(page, '#qr-code')).toBe(request.replace('amount=10&', 'amount=6&'));
    await expectClean(watched, 'partial');

    // The rest from an ordinary wallet, by address only.
    const last = await pay(chain, invoice.address, usd(6));
    await settle(chain);
    await expect.poll(() => statusText(page), LIVE).toBe('Payment complete');
    expect(await page.locator('#tx-hash').innerText()).toBe(last);
    expect(await page.locator('#explorer').getAttribute('href')).toBe(`http://localhost/tx/${last}`);
    expect(await page.locator('#qr-code').count()).toBe(0);
    await expectClean(watched, 'settled');
  });

  it('a deposit: no amount in the request (the payer chooses), no message without a description; Russian page', async () => {
    const shop = await shopNamed('Лавка');
    const deposit = await issue(shop, 'deposits', {});
    const watched = await openPage(browser, origin, {});
    opened.push(watched);
    await watched.page.goto(`${origin}/pay/${deposit.public_id}?lang=ru`);
    expect(await decodeQr(watched.page, '#qr-code')).toBe(`solana:${deposit.address}?spl-token=${chain.mint}&reference=${deposit.reference}&label=%D0%9B%D0%B0%D0%B2%D0%BA%D0%B0`);
    expect(await watched.page.locator('#scan-hint').innerText()).toContain('Solana Pay');
    await expectClean(watched, 'deposit');
  });

  it('an invoice without a description: the message says which invoice it is', async () => {
    const shop = await shopNamed('Shop');
    const invoice = await issue(shop, 'invoices', { amount: usd(1.25).toString() });
    const watched = await visit(invoice.public_id);
    expect(await decodeQr(watched.page, '#qr-code')).toBe(
      `solana:${invoice.address}?amount=1.25&spl-token=${chain.mint}&reference=${invoice.reference}&label=Shop&message=Invoice%20${invoice.public_id}`,
    );
  });

  it('cancelled and expired: closed, no address, no QR, do not send funds', async () => {
    const shop = await shopNamed('Shop');
    const cancelled = await issue(shop, 'invoices', { amount: usd(5).toString() });
    const expiring = await issue(shop, 'invoices', { amount: usd(5).toString(), expires_in: '1d' });
    const first = await visit(cancelled.public_id);
    const second = await visit(expiring.public_id);
    expect(await decodeQr(second.page, '#qr-code')).toContain(`reference=${expiring.reference}`);
    expect((await cancel(chain.app, shop.token, shop.shopId, cancelled.id)).statusCode).toBe(200);
    chain.app.clock.advance(86_400_000);
    await chain.app.jobs.drain();
    await expect.poll(() => statusText(first.page), LIVE).toBe('Closed: this checkout was cancelled by the merchant. Do not send funds.');
    await expect.poll(() => statusText(second.page), LIVE).toBe('Closed: this checkout has expired. Do not send funds.');
    for (const { page } of [first, second]) {
      expect(await page.locator('#address').count()).toBe(0);
      expect(await page.locator('#qr-code').count()).toBe(0);
      expect(await page.locator('#open-wallet').count()).toBe(0);
    }
    await expectClean(first, 'cancelled');
    await expectClean(second, 'expired');
  });
});
