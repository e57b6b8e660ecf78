import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { launchChromium, openPage, type WatchedPage } from '../support/browser.js';
import { expectCleanScreen } from '../support/dashboard.js';
import { createOwnerWithShop, createSession } from '../support/factories.js';
import { freePort } from '../support/local-server.js';

// Issue 25, Account → Security and the second factor at sign-in, with passkeys: Chromium's
// virtual authenticator (DevTools protocol) registers one from the Security screen, it is
// renamed, a new session is sent to the second-factor step and passes it with the passkey,
// and the passkey is removed. WebAuthn refuses IP addresses as relying party ids, so this
// app's PUBLIC_URL is http://localhost.

let app: TestApp;
let origin: string;
let browser: Browser;
let watched: WatchedPage;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
const screenshots: string[] = [];
const LIVE = { timeout: 20_000 };

beforeAll(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  app = await createTestApp({ PUBLIC_URL: origin });
  await app.server.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
  owner = await createOwnerWithShop(app.context.db);
  watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
  await watched.context.addCookies([{ name: 'ivory_session', value: owner.session.token, url: origin }]);
  const devtools = await watched.context.newCDPSession(watched.page);
  await devtools.send('WebAuthn.enable');
  await devtools.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
});
afterAll(async () => {
  await watched?.context.close();
  await browser?.close();
  await app?.close();
  process.stdout.write(`dashboard passkey screenshots (test-results/): ${JSON.stringify(screenshots)}\n`);
});

describe('passkeys in Chromium (issue 25)', () => {
  it('adds, renames, signs in with and removes a passkey', async () => {
    const { page } = watched;
    page.on('dialog', (dialog) => void (dialog.type() === 'prompt' ? dialog.accept('Work laptop') : dialog.accept()));
    await page.goto(`${origin}/dashboard/account/security`);
    await page.getByLabel('Name of the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.locator('#passkeys-table tbody').innerText(), LIVE).toContain('Laptop');
    await page.getByRole('button', { name: 'Rename Laptop' }).click();
    await expect.poll(() => page.locator('#passkeys-table tbody').innerText(), LIVE).toContain('Work laptop');
    await expectCleanScreen(watched, 'security-passkey-light', screenshots);

    // A new session of the same person owes the second factor now.
    const fresh = await createSession(app.context.db, owner.user.id);
    await watched.context.addCookies([{ name: 'ivory_session', value: fresh.token, url: origin }]);
    await page.goto(`${origin}/dashboard/account/security`);
    expect(page.url()).toContain('/dashboard/sign-in?next=');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${origin}/dashboard/account/security`);

    await expect.poll(() => page.locator('#passkeys-table tbody').innerText(), LIVE).toContain('Work laptop');
    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await expect.poll(() => page.locator('[data-empty-for="passkeys-table"]').isVisible(), LIVE).toBe(true);
  });
});
