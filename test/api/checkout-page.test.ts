import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/checkout/checkout-page.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, cancel, createDeposit, createInvoice, openInvoice, pay, setEnabled, simulate, usdc } from './issuances-helpers.js';

// SPEC "Checkout" payment_url (the hosted page), "What the service does" (cancelling closes the
// hosted page), LEDGER "Cancellation" (a cancelled invoice is never shown as payable again).

let app: TestApp;
beforeAll(async () => {
  // PAY_URL defaults to `${PUBLIC_URL}/pay`: the page is served by this app at /pay/{public_id}.
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function page(publicId: string) {
  return app.request({ method: 'GET', url: `/pay/${encodeURIComponent(publicId)}` });
}

function nonceOf(csp: string): string {
  const match = /script-src 'nonce-([^']+)'/.exec(csp);
  if (match?.[1] === undefined) throw new Error(`no script nonce in ${csp}`);
  return match[1];
}

describe('hosted payment page', () => {
  it('renders an open invoice: amount in tokens with symbol and network, the address with a copy button (SPEC "Checkout" payment_url)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10.5));
    expect(invoice.payment_url).toBe(`http://ivory.test/pay/${invoice.public_id}`);

    const response = await page(invoice.public_id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const html = response.body;
    expect(html).toContain('10.5 USDC');
    expect(html).toContain('on Base');
    expect(html).toContain(invoice.address);
    expect(html).toContain(`data-copy="${invoice.address}"`);
    expect(html).toContain('Waiting for payment');
    expect(html).toContain('Sandbox');
    // Polls the public checkout of the same public id, until a final state.
    expect(html).toContain(`data-poll-url="/api/v1/checkout/${invoice.public_id}"`);
    expect(html).toContain('data-final="no"');
  });

  it('Content-Security-Policy: only self and the nonced inline script; a fresh nonce per response', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(1));
    const first = await page(invoice.public_id);
    const second = await page(invoice.public_id);
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = nonceOf(csp);
    expect(nonce.length).toBeGreaterThanOrEqual(16);
    expect(nonceOf(String(second.headers['content-security-policy']))).not.toBe(nonce);
    // Every script on the page carries the nonce; no inline handlers.
    const scripts = first.body.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toEqual([`<script nonce="${nonce}">`]);
    expect(first.body).not.toMatch(/\son[a-z]+=/i);
  });

  it('escapes every merchant-supplied value (merchant name, branding, description)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const evil = '<script>alert("x")</script>';
    await app.context.db.updateTable('merchants').set({ name: evil }).where('id', '=', owner.merchant.id).execute();
    await app.context.db.updateTable('shops').set({ branding_name: `${evil}&"'` }).where('id', '=', owner.shop.id).execute();
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(5), { description: '<img src=x onerror=alert(1)>' });
    const html = (await page(invoice.public_id)).body;
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(evil));
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&quot;&#39;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('a cancelled invoice is closed and shows no address (LEDGER: never shown as payable again)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await cancel(app, owner.key.token, owner.shop.id, invoice.id)).statusCode).toBe(200);
    const html = (await page(invoice.public_id)).body;
    expect(html).toContain('Closed: this checkout was cancelled by the merchant. Do not send funds.');
    expect(html).not.toContain(invoice.address);
    expect(html).not.toContain('id="copy"');
    expect(html).toContain('data-final="yes"');

    // Funds arriving after cancellation still do not make it payable (SPEC: monitoring continues).
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(10));
    const after = (await page(invoice.public_id)).body;
    expect(after).toContain('Closed: this checkout was cancelled');
    expect(after).not.toContain(invoice.address);
  });

  it('a paid and a settled invoice show the payment received, no address', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(10));
    const funded = (await page(invoice.public_id)).body;
    expect(funded).toContain('Payment received');
    expect(funded).not.toContain(invoice.address);
    expect((await simulate(app, owner.key.token, owner.shop.id, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' })).statusCode).toBe(200);
    const settled = (await page(invoice.public_id)).body;
    expect(settled).toContain('Payment complete');
    expect(settled).toContain('data-final="yes"');
  });

  it('an invoice past expires_at is closed even before the expiry worker ran', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { expires_in: '1d' });
    app.clock.advance(86_400_000 + 1000);
    const html = (await page(invoice.public_id)).body;
    expect(html).toContain('Closed: this checkout has expired');
    expect(html).not.toContain(invoice.address);
  });

  it('a partly paid invoice shows what was received so far', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(4));
    const html = (await page(invoice.public_id)).body;
    expect(html).toContain('Partly paid');
    expect(html).toContain('<dt>Received</dt><dd>4 USDC</dd>');
    expect(html).toContain('<dt>Remaining</dt><dd id="remaining">6 USDC</dd>');
    expect(html).toContain(invoice.address);
    // The wallet request asks for what is left, not the whole amount.
    expect(html).toContain(`uint256=6000000`);
  });

  it('registering: no address yet, the page says it is preparing and polls', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) });
    const html = (await page(created.json().public_id)).body;
    expect(html).toContain('Preparing the payment address');
    expect(html).not.toContain('id="copy"');
    expect(html).toContain('data-final="no"');
  });

  it('a group lists its options, each linking to its own page; once paid the group is closed', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '7.25',
    });
    const group = created.json();
    await app.jobs.drain();
    const html = (await page(group.public_id)).body;
    const [first, second] = group.options as { id: string; public_id: string }[];
    expect(html).toContain(`href="http://ivory.test/pay/${first!.public_id}"`);
    expect(html).toContain(`href="http://ivory.test/pay/${second!.public_id}"`);
    expect(html).toContain('7.25 USDC');
    expect(html).toContain('on Arbitrum');

    const option = (await page(second!.public_id)).body;
    expect(option).toContain('7.25 USDC');
    expect(option).toContain('id="copy"');

    await pay(app, owner.key.token, owner.shop.id, first!.id, '7250000');
    const paid = (await page(group.public_id)).body;
    expect(paid).toContain('Payment received');
    expect(paid).not.toContain(`/pay/${second!.public_id}`);
    // The other option is no longer payable either (LEDGER "Groups": it would be a duplicate).
    const other = (await page(second!.public_id)).body;
    expect(other).toContain('paid with another option');
    expect(other).not.toContain('id="copy"');
  });

  it('a paused deposit is closed; re-enabled it is payable again', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    const deposit = created.json();
    await app.jobs.drain();
    const open = (await page(deposit.public_id)).body;
    expect(open).toContain('Send any amount of');
    expect(open).toContain('id="copy"');
    await setEnabled(app, owner.key.token, owner.shop.id, deposit.id, false);
    const paused = (await page(deposit.public_id)).body;
    expect(paused).toContain('Closed: this address is paused');
    expect(paused).not.toContain('id="copy"');
    await setEnabled(app, owner.key.token, owner.shop.id, deposit.id, true);
    expect((await page(deposit.public_id)).body).toContain('id="copy"');
  });

  it('return_url: a web link is offered, a javascript: URL never', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(3), { return_url: 'https://shop.example/done?a=1&b=2' });
    expect((await page(invoice.public_id)).body).toContain('href="https://shop.example/done?a=1&amp;b=2"');
    await app.context.db.updateTable('issuances').set({ return_url: 'javascript:alert(1)' }).where('id', '=', invoice.id).execute();
    expect((await page(invoice.public_id)).body).not.toContain('javascript:');
  });

  it('an unknown id is a 404 HTML page', async () => {
    for (const id of ['AAAAAAAAAAAAAAAA', '<script>']) {
      const response = await page(id);
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toContain("default-src 'none'");
      expect(response.body).toContain('Payment not found');
      expect(response.body).not.toContain('<script>"');
    }
  });

  it('an open EVM invoice offers its EIP-681 request as a server-rendered QR SVG, an "Open in wallet" link and a hidden browser-wallet button (issue 12)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(1250.5));
    const html = (await page(invoice.public_id)).body;
    const uri = `ethereum:${BASE_USDC}@${BASE}/transfer?address=${invoice.address}&uint256=1250500000`;
    expect(html).toContain(`href="${escapeHtml(uri)}"`);
    expect(html).toContain(`data-uri="${escapeHtml(uri)}"`);
    expect(html).toMatch(/<svg class="qr" id="qr-code" [^>]*role="img" aria-label="QR code of the payment request"/);
    expect(html).toMatch(/<button id="wallet" class="primary" type="button" hidden data-chain="0x2105"/);
    // Thousands separators, and the token's contract shortened with the full address on demand.
    expect(html).toContain('1,250.5 USDC');
    expect(html).toContain('0x8335…2913');
    expect(html).toContain(`<span class="hash">${BASE_USDC}</span></details>`);
  });

  it('a settled invoice shows a receipt: amount received, the transaction hash and the time paid', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(10));
    expect((await simulate(app, owner.key.token, owner.shop.id, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' })).statusCode).toBe(200);
    const view = (await app.request({ method: 'GET', url: `/api/v1/checkout/${invoice.public_id}` })).json();
    const html = (await page(invoice.public_id)).body;
    expect(html).toContain('Receipt');
    expect(html).toContain('<dt>Amount received</dt><dd>10 USDC</dd>');
    expect(view.tx_hash).not.toBe('');
    expect(html).toContain(`<span class="hash" id="tx-hash">${view.tx_hash}</span>`);
    expect(html).toMatch(/<dt>Paid at<\/dt><dd><time data-local datetime="[^"]+Z">/);
    // A sandbox hash is on no chain: no explorer link for it.
    expect(html).not.toContain('id="explorer"');
  });

  it('an invoice cancelled by the expiry job says it expired, not that it was cancelled (cancel_reason)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { expires_in: '1d' });
    app.clock.advance(86_400_000);
    await app.jobs.drain();
    const html = (await page(invoice.public_id)).body;
    expect(html).toContain('Closed: this checkout has expired. Do not send funds.');
    expect(html).not.toContain('this checkout was cancelled');
    expect(html).toContain('data-final="yes"');
  });

  it('Russian from Accept-Language; ?lang= switches and sets a cookie that sticks; the 404 page follows it too', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(1250.5));
    const russian = await app.request({ method: 'GET', url: `/pay/${invoice.public_id}`, headers: { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' } });
    expect(russian.headers['content-language']).toBe('ru');
    expect(russian.body).toContain('<html lang="ru">');
    expect(russian.body).toContain('Ожидаем оплату');
    expect(russian.body).toContain('1\u00a0250,5 USDC');
    expect((await app.request({ method: 'GET', url: `/pay/${invoice.public_id}`, headers: { 'accept-language': 'de, en;q=0.5' } })).body).toContain('Waiting for payment');

    const switched = await app.request({ method: 'GET', url: `/pay/${invoice.public_id}?lang=en`, headers: { 'accept-language': 'ru' } });
    expect(switched.body).toContain('Waiting for payment');
    const cookie = String(switched.headers['set-cookie']);
    expect(cookie).toMatch(/^ivory_lang=en; Path=\/pay; /);
    const sticky = await app.request({ method: 'GET', url: `/pay/${invoice.public_id}`, headers: { 'accept-language': 'ru', cookie: 'ivory_lang=en' } });
    expect(sticky.body).toContain('Waiting for payment');
    const missing = await app.request({ method: 'GET', url: '/pay/AAAAAAAAAAAAAAAA', headers: { cookie: 'ivory_lang=ru' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('Платёж не найден');
  });

  it('HSTS only when the page is served over HTTPS (X-Forwarded-Proto from a trusted proxy)', async () => {
    const proxied = await createTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      const owner = await createOwnerWithShop(proxied.context.db);
      const invoice = await openInvoice(proxied, owner.key.token, owner.shop.id, usdc(1));
      const https = await proxied.request({ method: 'GET', url: `/pay/${invoice.public_id}`, headers: { 'x-forwarded-proto': 'https' } });
      expect(https.headers['strict-transport-security']).toBe('max-age=31536000');
      const plain = await proxied.request({ method: 'GET', url: `/pay/${invoice.public_id}` });
      expect(plain.headers['strict-transport-security']).toBeUndefined();
      // From an untrusted address the header is ignored.
      const spoofed = await proxied.request({ method: 'GET', url: `/pay/${invoice.public_id}`, headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '203.0.113.9' });
      expect(spoofed.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });
});
