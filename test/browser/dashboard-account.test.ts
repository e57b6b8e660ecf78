import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { launchChromium, openPage, seriousViolations, type WatchedPage } from '../support/browser.js';
import { expectCleanScreen, inBothThemes, navigate, signInByEmail } from '../support/dashboard.js';
import { newId } from '../../src/platform/crypto.js';
import { createSession, createUser } from '../support/factories.js';
import { freePort } from '../support/local-server.js';
import { startMailCatcher, type MailCatcher } from '../support/mail-catcher.js';

// Issue 25, Account: Profile (display name, avatar, language and theme remembered in the
// profile) and Security (TOTP enrolment with a QR and the setup key, recovery codes shown once,
// passkeys, sign-in methods); then signing in again asks for the app's code before anything else.

let app: TestApp;
let catcher: MailCatcher;
let origin: string;
let browser: Browser;
const opened: WatchedPage[] = [];
const screenshots: string[] = [];
const EMAIL = 'founder@beta.example.com';
const TOTP_STEP_MS = 30_000;

beforeAll(async () => {
  catcher = await startMailCatcher();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  app = await createTestApp({ PUBLIC_URL: origin, SMTP_URL: catcher.url });
  await app.server.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
});
afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await app?.close();
  await catcher?.close();
  process.stdout.write(`dashboard account screenshots (test-results/): ${JSON.stringify(screenshots)}\n`);
});

const codeOf = (secret: string) => generate({ secret, epoch: Math.floor(app.clock.now().getTime() / 1000) });

describe('account screens in Chromium (issue 25)', () => {
  let watched: WatchedPage;
  let secret = '';

  it('Profile: display name, avatar, language and theme saved in the profile', async () => {
    watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/sign-in`);
    await signInByEmail(page, app, catcher, EMAIL);
    await page.waitForURL(`${origin}/dashboard/onboarding`);
    await page.getByLabel('Business name').fill('Beta Books');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${origin}/dashboard/shops`);

    await navigate(page, 'Profile');
    await page.getByLabel('Display name').fill('Ada');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.locator('#profile-saved').waitFor({ state: 'visible' });

    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } }).png().toBuffer();
    await page.getByLabel('Avatar (PNG or JPEG, up to 2048 × 2048 px)').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Upload avatar' }).click();
    await page.locator('#avatar-image').waitFor({ state: 'visible' });
    expect(await page.locator('#avatar-image').getAttribute('src')).toMatch(/^data:image\/png;base64,/);

    // A file that is no image: the API's refusal next to the field.
    await page.getByLabel('Avatar (PNG or JPEG, up to 2048 × 2048 px)').setInputFiles({ name: 'no.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await page.getByRole('button', { name: 'Upload avatar' }).click();
    await expect.poll(() => page.locator('#avatar-image_base64-error').innerText()).toBe('Choose a PNG or JPEG image.');
    watched.problems.length = 0; // the refused upload's 400, logged by Chromium: expected

    await inBothThemes(watched, 'profile', screenshots);
    await page.locator('form#profile').getByLabel('Language').selectOption('ru');
    const reloaded = page.waitForEvent('framenavigated');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await reloaded;
    await page.waitForLoadState('networkidle');
    expect(await page.locator('html').getAttribute('lang')).toBe('ru');
    expect(await page.getByLabel('Отображаемое имя').inputValue()).toBe('Ada');
    const profile = (await page.evaluate(`fetch('/api/v1/profile').then((r) => r.json())`)) as { display_name: string; preferences: { language: string } };
    expect(profile).toMatchObject({ display_name: 'Ada', preferences: { language: 'ru' } });
    await page.getByRole('link', { name: 'EN', exact: true }).click();
    await page.waitForURL(/[?&]lang=en/);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
  });

  it('Security: TOTP enrolment with QR and setup key, recovery codes once, sign-in methods', async () => {
    const { page } = watched;
    await navigate(page, 'Security');
    expect(await page.locator('#totp-state').innerText()).toContain('No authenticator app yet');
    await expect.poll(() => page.locator('#identities-table tbody').innerText()).toContain(EMAIL);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Unlink ${EMAIL}` }).click();
    await expect.poll(() => page.locator('#action-error').innerText()).toBe('This is your last sign-in method; add another first.');
    watched.problems.length = 0; // the refused call's 400, logged by Chromium: expected
    await page.reload();
    await inBothThemes(watched, 'security', screenshots);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.locator('#totp-setup').waitFor({ state: 'visible' });
    secret = await page.locator('#totp-secret').innerText();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.locator('#totp-qr').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    await page.getByLabel('Code from the app').fill(await codeOf(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('#recovery-box').waitFor({ state: 'visible' });
    expect((await page.locator('#recovery-codes').innerText()).trim().split('\n')).toHaveLength(10);
    await expect.poll(() => page.locator('#totp-state').innerText()).toContain('An authenticator app protects your sign-in.');
    await expectCleanScreen(watched, 'security-totp-on-dark', screenshots);
  });

  it('signing in again asks for the authenticator code before anything else', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/dashboard/sign-in`);
    await signInByEmail(page, app, catcher, EMAIL);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page.goto(`${origin}/dashboard/shops`);
    expect(page.url()).toContain('/dashboard/sign-in?next=');
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await inBothThemes(watched, 'second-factor', screenshots);
    app.clock.advance(TOTP_STEP_MS); // a code already used at enrolment is not accepted twice
    await page.getByLabel('Code from the authenticator app').fill(await codeOf(secret));
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(`${origin}/dashboard/shops`);
  });
});

describe('onboarding a wallet-only account in Chromium (issue 25, Sign-in: "e-mail for wallet-only accounts")', () => {
  it('asks for the e-mail only when the API answers email_required, shows refusals next to it, and the e-mail then signs in to the same account (SPEC "Account" POST /onboarding)', async () => {
    // An agent's account: a wallet identity, no e-mail sign-in, not onboarded; its session reaches the browser as the cookie.
    const user = await createUser(app.context.db);
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', user.id).execute();
    await app.context.db
      .insertInto('identities')
      .values({ id: newId(), user_id: user.id, provider: 'wallet', subject: '0x2222222222222222222222222222222222222222', label: '0x2222…2222' })
      .execute();
    const session = await createSession(app.context.db, user.id);
    const watched = await openPage(browser, origin, { viewport: { width: 1280, height: 900 } });
    opened.push(watched);
    const { page } = watched;
    await watched.context.addCookies([{ name: 'ivory_session', value: session.token, url: origin }]);
    await page.goto(`${origin}/dashboard/`);
    await page.waitForURL(`${origin}/dashboard/onboarding`);
    const email = page.getByLabel('E-mail for sign-in');
    expect(await email.isVisible()).toBe(false);

    await page.getByLabel('Business name').fill('Agent Works');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('#onboard-email-error').innerText()).toBe('Enter an e-mail address for sign-in.');
    expect(await email.isVisible()).toBe(true);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    // The 400 in the console is the API's answer the screen shows; axe still finds nothing serious.
    expect((await seriousViolations(page)).join('\n')).toBe('');

    // Bad input changes nothing: the account still owes onboarding, no merchant, no e-mail identity.
    await email.fill('someone@mailinator.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('#onboard-email-error').innerText()).toBe('Disposable e-mail addresses are not accepted.');
    expect(await app.context.db.selectFrom('grants').select('id').where('user_id', '=', user.id).execute()).toHaveLength(0);
    expect(await app.context.db.selectFrom('identities').select('provider').where('user_id', '=', user.id).execute()).toEqual([{ provider: 'wallet' }]);

    await email.fill('agent@works.example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${origin}/dashboard/shops`);
    const identities = await app.context.db.selectFrom('identities').select(['provider', 'subject']).where('user_id', '=', user.id).orderBy('provider').execute();
    expect(identities.map((identity) => identity.provider)).toEqual(['email', 'wallet']);

    // The e-mail is now a sign-in method of the same account: a code sign-in lands on its Overview, not on onboarding.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/dashboard\/sign-in/);
    await signInByEmail(page, app, catcher, 'agent@works.example.com');
    await page.waitForURL(`${origin}/dashboard/`);
    const sessions = await app.context.db.selectFrom('sessions').select('user_id').where('method', '=', 'email').execute();
    expect(sessions.map((row) => row.user_id)).toContain(user.id);
  });
});
