import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createSession, createUser } from '../support/factories.js';

// Issue 25 items 1 and 2, server side: every screen answers at {root_url}/dashboard/…, a strict
// CSP with a fresh nonce, no session lands on the sign-in screen, a session that still owes
// onboarding lands on onboarding, and a cold load of each screen (HTML + CSS + JS) stays under
// 150 KiB.

const SESSION_COOKIE = 'ivory_session';
const PAGE_BUDGET_BYTES = 150 * 1024;
const SCREENS = [
  '/dashboard/',
  '/dashboard/shops',
  '/dashboard/shops/00000000-0000-4000-8000-000000000000',
  '/dashboard/invoices',
  '/dashboard/invoices/00000000-0000-4000-8000-000000000000',
  '/dashboard/payments',
  '/dashboard/developers/keys',
  '/dashboard/developers/webhooks',
  '/dashboard/developers/deliveries',
  '/dashboard/developers/events',
  '/dashboard/team',
  '/dashboard/account/profile',
  '/dashboard/account/security',
  '/dashboard/invites/00000000-0000-4000-8000-000000000000',
];

let app: TestApp;
let ownerCookie: string;

beforeAll(async () => {
  app = await createTestApp();
  const owner = await createOwnerWithShop(app.context.db);
  ownerCookie = `${SESSION_COOKIE}=${owner.session.token}`;
});
afterAll(async () => {
  await app.close();
});

const get = (url: string, cookie?: string, headers: Record<string, string> = {}) =>
  app.request({ method: 'GET', url, headers: { ...(cookie === undefined ? {} : { cookie }), ...headers } });

/** The stylesheet and script a screen links to, fetched as a cold browser would. */
async function assetBytes(html: string): Promise<number> {
  let total = 0;
  for (const match of html.matchAll(/(?:href|src)="(\/dashboard\/assets\/[^"]+)"/g)) {
    const asset = await get(match[1] ?? '');
    expect(asset.statusCode).toBe(200);
    total += asset.rawPayload.byteLength;
  }
  return total;
}

describe('dashboard screens (issue 25)', () => {
  it('/dashboard redirects to /dashboard/, and without a session every screen lands on sign-in', async () => {
    const bare = await get('/dashboard');
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/dashboard/');
    for (const path of SCREENS.filter((screen) => !screen.includes('/invites/'))) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(303);
      expect(String(response.headers.location), path).toMatch(/^\/dashboard\/sign-in/);
    }
    const invite = await get(SCREENS.at(-1) ?? '');
    expect(invite.headers.location).toBe(`/dashboard/sign-in?next=${encodeURIComponent(SCREENS.at(-1) ?? '')}`);
  });

  it('an unknown or expired cookie is no session: the sign-in screen', async () => {
    const response = await get('/dashboard/shops', `${SESSION_COOKIE}=not-a-session`);
    expect(response.statusCode).toBe(303);
    const signIn = await get('/dashboard/sign-in', `${SESSION_COOKIE}=not-a-session`);
    expect(signIn.statusCode).toBe(200);
    expect(signIn.body).toContain('name="email"');
  });

  it('sign-in: a CSP with a fresh nonce on the one script, no unsafe-inline or unsafe-eval, nothing from another origin', async () => {
    const first = await get('/dashboard/sign-in');
    const second = await get('/dashboard/sign-in');
    expect(first.statusCode).toBe(200);
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(csp).not.toBe(String(second.headers['content-security-policy']));
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
    const scripts = [...first.body.matchAll(/<script([^>]*)>/g)].map((match) => match[1] ?? '');
    for (const script of scripts) expect(script.includes(`nonce="${nonce}"`) || script.includes('type="application/json"'), script).toBe(true);
    expect(first.body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(first.headers['cache-control']).toBe('no-store');
  });

  it('the identity-provider button shows only when one is configured', async () => {
    const without = await get('/dashboard/sign-in');
    expect(without.body).not.toContain('/api/v1/auth/google');
    const withProvider = await createTestApp({ OIDC_CLIENT_ID: 'dashboard', OIDC_CLIENT_SECRET: 'secret', OIDC_ISSUER: 'https://issuer.example' });
    try {
      const page = await withProvider.request({ method: 'GET', url: '/dashboard/sign-in' });
      expect(page.body).toContain('href="/api/v1/auth/google?return_to=%2Fdashboard%2F"');
    } finally {
      await withProvider.close();
    }
  });

  it('a signed-in person on sign-in goes to the overview; one who has not onboarded goes to onboarding', async () => {
    const signedIn = await get('/dashboard/sign-in', ownerCookie);
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/');
    const user = await createUser(app.context.db);
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', user.id).execute();
    const fresh = `${SESSION_COOKIE}=${(await createSession(app.context.db, user.id)).token}`;
    const shops = await get('/dashboard/shops', fresh);
    expect(shops.statusCode).toBe(303);
    expect(shops.headers.location).toBe('/dashboard/onboarding');
    const onboarding = await get('/dashboard/onboarding', fresh);
    expect(onboarding.statusCode).toBe(200);
    expect(onboarding.body).toContain('name="name"');
    // An invited person is not asked to onboard first (issue 25, Team).
    expect((await get(SCREENS.at(-1) ?? '', fresh)).statusCode).toBe(200);
    expect((await get('/dashboard/onboarding', ownerCookie)).headers.location).toBe('/dashboard/');
  });

  it('every screen renders for an owner with the navigation labels the issue names, and weighs under 150 KiB cold', async () => {
    const weights: Record<string, number> = {};
    for (const path of SCREENS) {
      const response = await get(path, ownerCookie);
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      for (const label of ['Overview', 'Shops', 'Invoices', 'Payments', 'Developers', 'API keys', 'Webhooks', 'Deliveries', 'Events', 'Team', 'Account', 'Profile', 'Security']) {
        if (!path.includes('/invites/')) expect(response.body, `${path} ${label}`).toContain(`>${label}<`);
      }
      expect(response.body).toMatch(/data-csrf="[^"]+"/);
      weights[path] = response.rawPayload.byteLength + (await assetBytes(response.body));
      expect(weights[path], path).toBeLessThan(PAGE_BUDGET_BYTES);
    }
    process.stdout.write(`dashboard cold weights (bytes): ${JSON.stringify(weights)}\n`);
  });

  it('language: ?lang=ru switches and is remembered in a cookie; Accept-Language picks it first time', async () => {
    const switched = await get('/dashboard/sign-in?lang=ru');
    expect(switched.headers['content-language']).toBe('ru');
    expect(switched.body).toContain('<html lang="ru"');
    expect(switched.body).toContain('Отправить код');
    expect(String(switched.headers['set-cookie'])).toContain('ivory_lang=ru; Path=/dashboard');
    expect((await get('/dashboard/sign-in', undefined, { cookie: 'ivory_lang=ru' })).body).toContain('Отправить код');
    expect((await get('/dashboard/sign-in', undefined, { 'accept-language': 'ru-RU,ru;q=0.9' })).body).toContain('<html lang="ru"');
    expect((await get('/dashboard/sign-in', undefined, { 'accept-language': 'de-DE' })).body).toContain('<html lang="en"');
  });

  it('theme: system by default, ?theme=dark remembered', async () => {
    expect((await get('/dashboard/sign-in')).body).toContain('data-theme="system"');
    const dark = await get('/dashboard/sign-in?theme=dark');
    expect(dark.body).toContain('data-theme="dark"');
    expect(String(dark.headers['set-cookie'])).toContain('ivory_theme=dark');
    expect((await get('/dashboard/sign-in', undefined, { cookie: 'ivory_theme=light' })).body).toContain('data-theme="light"');
  });

  it('assets: the script and stylesheet are served, anything else is 404; the QR route draws only payment links', async () => {
    const page = await get('/dashboard/sign-in');
    const script = /src="(\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]+)"/.exec(page.body)?.[1] ?? '';
    const response = await get(script);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/dashboard/assets/other.js')).statusCode).toBe(404);
    const qr = await get(`/dashboard/qr.svg?text=${encodeURIComponent(`${app.context.config.payUrl}/abc`)}`);
    expect(qr.statusCode).toBe(200);
    expect(qr.body).toContain('<svg');
    expect((await get(`/dashboard/qr.svg?text=${encodeURIComponent('https://elsewhere.example/x')}`)).statusCode).toBe(404);
  });
});
