import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../app-context.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { loadDashboardAssets } from './dashboard-assets.js';
import { overviewFigures } from './dashboard-overview.js';
import { dashboardSecurityPolicy, isTheme, renderDashboardPage, type Theme } from './dashboard-page.js';
import type { ScreenId } from './dashboard-screens.js';
import { dashboardSessionReader, type DashboardSession } from './dashboard-session.js';
import { isLang, langFromAcceptLanguage, type Lang } from './dashboard-text.js';

/** The dashboard's place on the server root (ARCHITECTURE "Modules": `{root_url}/dashboard/`). */
export const DASHBOARD_PATH = '/dashboard';

const LANG_COOKIE = 'ivory_lang';
const THEME_COOKIE = 'ivory_theme';
const ONE_YEAR_SECONDS = 31_536_000;
const QR_TEXT_LIMIT = 512;

/** Screens that need a signed-in, onboarded person, by path under DASHBOARD_PATH. */
const SCREENS: readonly (readonly [string, ScreenId])[] = [
  ['/', 'overview'],
  ['/shops', 'shops'],
  ['/shops/:id', 'shop'],
  ['/invoices', 'invoices'],
  ['/invoices/:id', 'invoice'],
  ['/payments', 'payments'],
  ['/developers/keys', 'keys'],
  ['/developers/webhooks', 'webhooks'],
  ['/developers/deliveries', 'deliveries'],
  ['/developers/events', 'events'],
  ['/team', 'team'],
  ['/account/profile', 'profile'],
  ['/account/security', 'security'],
];

const Query = Type.Object({ lang: Type.Optional(Type.String()), theme: Type.Optional(Type.String()), next: Type.Optional(Type.String()) });
const ItemParams = Type.Object({ id: Type.Optional(Type.String()) });

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const [key, value] = pair.trim().split('=');
    if (key === name) return value;
  }
  return undefined;
}

/** A language or theme from `?lang=` / `?theme=` (the header switches' links, remembered in a cookie), else the cookie. */
function preference<T extends string>(request: FastifyRequest, reply: FastifyReply, query: string | undefined, cookie: string, valid: (value: unknown) => value is T): T | undefined {
  if (valid(query)) {
    const secure = request.protocol === 'https' ? '; Secure' : '';
    // Not HttpOnly: the script writes the same cookie when the person switches without a reload.
    void reply.header('Set-Cookie', `${cookie}=${query}; Path=${DASHBOARD_PATH}; Max-Age=${ONE_YEAR_SECONDS}; SameSite=Lax${secure}`);
    return query;
  }
  const stored = cookieValue(request.headers.cookie, cookie);
  return valid(stored) ? stored : undefined;
}

/** Where a request for `screen` must go instead, given the session; undefined when it may render. */
function detour(screen: ScreenId, session: DashboardSession | undefined, path: string): string | undefined {
  const signIn = `${DASHBOARD_PATH}/sign-in`;
  if (screen === 'sign-in') return session !== undefined && !session.factorPending ? `${DASHBOARD_PATH}/` : undefined;
  if (session === undefined) return screen === 'overview' ? signIn : `${signIn}?next=${encodeURIComponent(path)}`;
  if (session.factorPending) return `${signIn}?next=${encodeURIComponent(path)}`;
  if (screen === 'onboarding') return session.onboardingRequired ? undefined : `${DASHBOARD_PATH}/`;
  // An invited person joins an existing merchant: no onboarding of their own first (issue 25, Team).
  if (screen === 'invite') return undefined;
  return session.onboardingRequired ? `${DASHBOARD_PATH}/onboarding` : undefined;
}

/**
 * The merchant dashboard (issue 25, decision 0030): server-rendered screens
 * whose one script drives the public API with the session cookie, CSRF token
 * and Idempotency-Key. Every route here is PUBLIC to the HTTP core; a screen
 * reads the session itself to choose between rendering and the sign-in screen.
 */
export async function dashboardRoutes(server: IvoryServer, context: AppContext): Promise<void> {
  const assets = loadDashboardAssets();
  const readSession = dashboardSessionReader(context);
  // return_to makes the callback set the cookie and come back here (decision 0014), where the screen decides: factor, onboarding or overview.
  const providerUrl = context.config.oidc === undefined ? undefined : `${API_PREFIX}/auth/google?return_to=${encodeURIComponent(`${DASHBOARD_PATH}/`)}`;
  const payUrl = context.config.payUrl;

  async function render(screen: ScreenId, request: FastifyRequest, reply: FastifyReply) {
    // Shapes checked by the route schemas (Query, ItemParams) before the handler runs.
    const query = request.query as Static<typeof Query>;
    const params = request.params as Static<typeof ItemParams>;
    const session = await readSession(request);
    const path = request.url.split('?')[0] ?? DASHBOARD_PATH;
    const target = detour(screen, session, path);
    if (target !== undefined) return reply.redirect(target, 303);
    const nonce = randomBytes(16).toString('base64');
    const lang: Lang = preference(request, reply, query.lang, LANG_COOKIE, isLang) ?? langFromAcceptLanguage(request.headers['accept-language']);
    const theme: Theme = preference(request, reply, query.theme, THEME_COOKIE, isTheme) ?? 'system';
    // Past the detour, a screen other than sign-in, onboarding and invite has a session.
    const overview = screen === 'overview' && session !== undefined ? await overviewFigures(context.db, session.principal, context.clock.now()) : undefined;
    void reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', dashboardSecurityPolicy(nonce))
      .header('Cache-Control', 'no-store')
      .header('Content-Language', lang)
      .header('Vary', 'Accept-Language, Cookie')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin');
    // As the payment page: HSTS only over https, which honours X-Forwarded-Proto only from TRUST_PROXY.
    if (request.protocol === 'https') void reply.header('Strict-Transport-Security', `max-age=${ONE_YEAR_SECONDS}`);
    return reply.send(
      renderDashboardPage({
        screen,
        lang,
        theme,
        nonce,
        base: DASHBOARD_PATH,
        api: API_PREFIX,
        csrf: session?.csrf,
        brand: context.config.brand,
        providerUrl,
        factorStep: session?.factorPending === true,
        itemId: params.id,
        assetVersion: assets.version,
        overview,
      }),
    );
  }

  const page = { schema: { querystring: Query, params: ItemParams, hide: true }, config: { auth: PUBLIC } };
  server.get(DASHBOARD_PATH, { schema: { hide: true }, config: { auth: PUBLIC } }, async (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/`, 301));
  for (const [path, screen] of SCREENS) server.get(`${DASHBOARD_PATH}${path}`, page, (request, reply) => render(screen, request, reply));
  server.get(`${DASHBOARD_PATH}/sign-in`, page, (request, reply) => render('sign-in', request, reply));
  server.get(`${DASHBOARD_PATH}/onboarding`, page, (request, reply) => render('onboarding', request, reply));
  server.get(`${DASHBOARD_PATH}/invites/:id`, page, (request, reply) => render('invite', request, reply));

  server.get(
    `${DASHBOARD_PATH}/assets/:name`,
    { schema: { params: Type.Object({ name: Type.String() }), hide: true }, config: { auth: PUBLIC } },
    async (request, reply) => {
      const asset = assets.files.get(request.params.name);
      if (asset === undefined) return reply.status(404).send('not found');
      return reply.header('Content-Type', asset.type).header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff').send(asset.body);
    },
  );

  // The QR of a TOTP setup URI: sent in a POST body, because the secret in it must not reach URL logs.
  server.post(
    `${DASHBOARD_PATH}/qr.svg`,
    { schema: { body: Type.Object({ text: Type.String({ maxLength: QR_TEXT_LIMIT }) }, { additionalProperties: false }), hide: true }, config: { auth: PUBLIC } },
    async (request, reply) => {
      if (!request.body.text.startsWith('otpauth://totp/')) return reply.status(404).send('not found');
      const svg = await QRCode.toString(request.body.text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
      return reply.header('Content-Type', 'image/svg+xml').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').send(svg);
    },
  );

  // The QR of an invoice's payment link, drawn here because the CSP admits no script from elsewhere; only payment links, so it is no general QR service.
  server.get(
    `${DASHBOARD_PATH}/qr.svg`,
    { schema: { querystring: Type.Object({ text: Type.String({ maxLength: QR_TEXT_LIMIT }) }), hide: true }, config: { auth: PUBLIC } },
    async (request, reply) => {
      if (!request.query.text.startsWith(`${payUrl}/`)) return reply.status(404).send('not found');
      const svg = await QRCode.toString(request.query.text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
      return reply.header('Content-Type', 'image/svg+xml').header('Cache-Control', 'private, max-age=3600').header('X-Content-Type-Options', 'nosniff').send(svg);
    },
  );
}
