import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { launchChromium, openPage, type WatchedPage } from '../support/browser.js';
import { expectCleanScreen, inBothThemes, navigate, signInByEmail } from '../support/dashboard.js';
import { createMerchant, createOwnerWithShop, createSession, createShop, createUser } from '../support/factories.js';
import { freePort } from '../support/local-server.js';
import { startMailCatcher, type MailCatcher } from '../support/mail-catcher.js';
import { BASE, BASE_USDC, createInvoice, usdc } from '../api/issuances-helpers.js';

// Issue 25, Team and Roles: an owner invites a viewer from the Team screen; the invitation
// e-mail links to {root_url}/dashboard/invites/{id}; the viewer, in a second browser, signs in
// from that link by the e-mailed code, accepts without onboarding a merchant of their own, and
// sees no write control (no keys, webhooks or team in the navigation; no create, cancel or
// simulate buttons), while the API would refuse anyway.

let app: TestApp;
let catcher: MailCatcher;
let origin: string;
let browser: Browser;
const opened: WatchedPage[] = [];
const screenshots: string[] = [];
const VIEWER = 'accountant@shop.example.com';

let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
let invoiceId: string;

beforeAll(async () => {
  catcher = await startMailCatcher();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  app = await createTestApp({ PUBLIC_URL: origin, SMTP_URL: catcher.url });
  await app.server.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
  owner = await createOwnerWithShop(app.context.db);
  const created = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(20) });
  invoiceId = created.json<{ id: string }>().id;
});
afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await app?.close();
  await catcher?.close();
  process.stdout.write(`dashboard team screenshots (test-results/): ${JSON.stringify(screenshots)}\n`);
});

async function signedInOwner(): Promise<WatchedPage> {
  const watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
  opened.push(watched);
  await watched.context.addCookies([{ name: 'ivory_session', value: owner.session.token, url: origin }]);
  return watched;
}

describe('team and roles in Chromium (issue 25)', () => {
  let inviteUrl = '';

  it('the owner invites a viewer; the e-mail links to the dashboard’s invitation screen', async () => {
    const watched = await signedInOwner();
    const { page } = watched;
    await page.goto(`${origin}/dashboard/team`);
    await page.waitForLoadState('networkidle');
    const form = page.locator('form#team');
    await form.getByLabel('E-mail address').fill(VIEWER);
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await page.locator('#team-sent').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#invitations-table tbody').innerText()).toContain(VIEWER);
    expect(await page.locator('#invitations-table tbody').innerText()).toContain('Viewer');
    await inBothThemes(watched, 'team', screenshots);

    await app.jobs.drain();
    const mail = catcher.messages.filter((message) => message.to.includes(VIEWER)).at(-1);
    const link = new RegExp(`${origin.replace(/[.]/g, '\\.')}/dashboard/invites/[0-9a-f-]{36}`).exec(mail?.raw.replace(/=\r?\n/g, '') ?? '');
    expect(link).not.toBeNull();
    inviteUrl = link?.[0] ?? '';
  });

  it('the viewer signs in from the link, accepts without onboarding, and sees no write control', async () => {
    const watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
    opened.push(watched);
    const { page } = watched;
    await page.goto(inviteUrl);
    expect(page.url()).toContain('/dashboard/sign-in?next=');
    await signInByEmail(page, app, catcher, VIEWER);
    await page.waitForURL(inviteUrl);
    await expectCleanScreen(watched, 'invite-light', screenshots);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.locator('#invite-done').waitFor({ state: 'visible' });

    await page.goto(`${origin}/dashboard/`);
    await page.waitForLoadState('networkidle');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const hidden of ['API keys', 'Webhooks', 'Team']) expect(await nav.getByRole('link', { name: hidden, exact: true }).isVisible(), hidden).toBe(false);
    for (const shown of ['Overview', 'Invoices', 'Payments', 'Deliveries', 'Events']) expect(await nav.getByRole('link', { name: shown, exact: true }).isVisible(), shown).toBe(true);

    await navigate(page, 'Invoices');
    await expect.poll(() => page.locator('#invoices-table tbody').innerText()).toContain('20 USDC');
    expect(await page.getByText('Create an invoice').isVisible()).toBe(false);
    await inBothThemes(watched, 'viewer-invoices', screenshots);

    await page.goto(`${origin}/dashboard/invoices/${invoiceId}?shop=${owner.shop.id}`);
    await expect.poll(() => page.locator('#invoice-facts').innerText()).toContain('20 USDC');
    for (const name of ['Simulate payment', 'Simulate closing', 'Simulate reversal', 'Cancel invoice']) {
      expect(await page.getByRole('button', { name }).isVisible(), name).toBe(false);
    }
    await navigate(page, 'Shops');
    expect(await page.getByRole('button', { name: 'Create shop' }).isVisible()).toBe(false);
  });

  it('a developer sees keys and webhooks with their controls, but not the team', async () => {
    const developer = await createUser(app.context.db);
    const merchant = await createMerchant(app.context.db, developer.id, { role: 'developer' });
    await createShop(app.context.db, merchant.id);
    const session = await createSession(app.context.db, developer.id);
    const watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
    opened.push(watched);
    await watched.context.addCookies([{ name: 'ivory_session', value: session.token, url: origin }]);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/developers/keys`);
    await page.waitForLoadState('networkidle');
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const shown of ['API keys', 'Webhooks']) expect(await nav.getByRole('link', { name: shown, exact: true }).isVisible(), shown).toBe(true);
    expect(await nav.getByRole('link', { name: 'Team', exact: true }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Create key' }).isVisible()).toBe(true);
    await expectCleanScreen(watched, 'developer-api-keys-light', screenshots);
  });
});
