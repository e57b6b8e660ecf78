import { escapeHtml } from './dashboard-html.js';
import { screenMain, screenTitle, type ScreenContext, type ScreenId } from './dashboard-screens.js';
import { CLIENT_TEXT, LANGS, TEXT, type DashboardText, type Lang } from './dashboard-text.js';

export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];

export function isTheme(value: unknown): value is Theme {
  return value === 'light' || value === 'dark' || value === 'system';
}

export interface PageInput {
  readonly screen: ScreenId;
  readonly lang: Lang;
  readonly theme: Theme;
  readonly nonce: string;
  /** `/dashboard`: every link and asset is under it. */
  readonly base: string;
  /** `/api/v1` on this origin: where the script sends its calls. */
  readonly api: string;
  /** The session's CSRF token; absent before sign-in. */
  readonly csrf: string | undefined;
  readonly brand: string;
  readonly providerUrl: string | undefined;
  readonly factorStep: boolean;
  /** The path parameter of the screen (an invoice or invitation id). */
  readonly itemId: string | undefined;
  readonly assetVersion: string;
  /** Overview only: its figures by shop id, read on the server (decision 0034). */
  readonly overview?: unknown;
}

/** CSP of every dashboard response: our origin only, scripts by nonce, nothing inline without it. */
export function dashboardSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "style-src 'self'",
    "connect-src 'self'",
    // Avatars and QR codes: our own routes and inline PNG data URLs (SPEC "Profile" avatar_url).
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SIGNED_OUT: readonly ScreenId[] = ['sign-in', 'onboarding', 'invite'];

interface NavItem {
  readonly screen: ScreenId;
  readonly path: string;
  readonly label: (text: DashboardText) => string;
  /** Hidden until the script knows the person may see it (not for viewers). */
  readonly restricted?: boolean;
}

const NAV: readonly (NavItem | { readonly group: (text: DashboardText) => string; readonly items: readonly NavItem[] })[] = [
  { screen: 'overview', path: '/', label: (t) => t.nav.overview },
  { screen: 'shops', path: '/shops', label: (t) => t.nav.shops },
  { screen: 'invoices', path: '/invoices', label: (t) => t.nav.invoices },
  { screen: 'payments', path: '/payments', label: (t) => t.nav.payments },
  {
    group: (t) => t.nav.developers,
    items: [
      { screen: 'keys', path: '/developers/keys', label: (t) => t.nav.keys, restricted: true },
      { screen: 'webhooks', path: '/developers/webhooks', label: (t) => t.nav.webhooks, restricted: true },
      { screen: 'deliveries', path: '/developers/deliveries', label: (t) => t.nav.deliveries },
      { screen: 'events', path: '/developers/events', label: (t) => t.nav.events },
    ],
  },
  { screen: 'team', path: '/team', label: (t) => t.nav.team, restricted: true },
  {
    group: (t) => t.nav.account,
    items: [
      { screen: 'profile', path: '/account/profile', label: (t) => t.nav.profile },
      { screen: 'security', path: '/account/security', label: (t) => t.nav.security },
    ],
  },
];

function navLink(item: NavItem, input: PageInput, text: DashboardText): string {
  const current = item.screen === input.screen || (item.screen === 'invoices' && input.screen === 'invoice') || (item.screen === 'shops' && input.screen === 'shop') ? ' aria-current="page"' : '';
  const restricted = item.restricted === true ? ` data-restricted="${item.screen}"` : '';
  return `<li${restricted}><a href="${input.base}${item.path}"${current}>${escapeHtml(item.label(text))}</a></li>`;
}

function navigation(input: PageInput, text: DashboardText): string {
  const entries = NAV.map((entry) =>
    'group' in entry
      ? `<li><span class="nav-group">${escapeHtml(entry.group(text))}</span><ul>${entry.items.map((item) => navLink(item, input, text)).join('')}</ul></li>`
      : navLink(entry, input, text),
  ).join('');
  return `<nav aria-label="${escapeHtml(text.nav.label)}" id="nav"><ul>${entries}</ul></nav>`;
}

function switches(input: PageInput, text: DashboardText): string {
  const langs = LANGS.map(
    (lang) =>
      `<a href="?lang=${lang}" lang="${lang}" data-lang="${lang}"${lang === input.lang ? ' aria-current="true"' : ''}>${lang.toUpperCase()}</a>`,
  ).join(' ');
  const themes = THEMES.map(
    (theme) => `<a href="?theme=${theme}" data-theme-choice="${theme}"${theme === input.theme ? ' aria-current="true"' : ''}>${escapeHtml(text.header[theme])}</a>`,
  ).join(' ');
  return (
    `<nav class="switch" aria-label="${escapeHtml(text.header.language)}">${langs}</nav>` +
    `<nav class="switch" aria-label="${escapeHtml(text.header.theme)}">${themes}</nav>`
  );
}

function header(input: PageInput, text: DashboardText): string {
  const signedIn = input.csrf !== undefined && !SIGNED_OUT.includes(input.screen);
  const shop = signedIn
    ? `<label class="shop-pick"><span>${escapeHtml(text.header.shop)}</span> <select id="shop-pick" aria-label="${escapeHtml(text.header.shop)}"></select></label><span id="shop-badge" class="badge" hidden></span>`
    : '';
  const signOut = input.csrf === undefined ? '' : `<button type="button" id="sign-out">${escapeHtml(text.header.signOut)}</button>`;
  return (
    `<header class="top"><a class="brand" href="${input.base}/">${escapeHtml(input.brand)} <span>${escapeHtml(text.brandTagline)}</span></a>` +
    `${shop}<div class="tools">${switches(input, text)}${signOut}</div></header>`
  );
}

/** The whole HTML document of one screen. */
export function renderDashboardPage(input: PageInput): string {
  const text = TEXT[input.lang];
  const context: ScreenContext = { text, providerUrl: input.providerUrl, factorStep: input.factorStep };
  const signedIn = input.csrf !== undefined && !SIGNED_OUT.includes(input.screen);
  const data = [
    `data-screen="${input.screen}"`,
    `data-base="${escapeHtml(input.base)}"`,
    `data-api="${escapeHtml(input.api)}"`,
    input.csrf === undefined ? '' : `data-csrf="${escapeHtml(input.csrf)}"`,
    input.itemId === undefined ? '' : `data-item="${escapeHtml(input.itemId)}"`,
  ]
    .filter((part) => part !== '')
    .join(' ');
  const layout = signedIn
    ? `<div class="layout">${navigation(input, text)}<main id="main" tabindex="-1">${screenMain(input.screen, context)}</main></div>`
    : `<main id="main" tabindex="-1" class="narrow">${screenMain(input.screen, context)}</main>`;
  // A data block, not a script: the CSP does not run it, the script reads it with JSON.parse.
  const words = JSON.stringify(CLIENT_TEXT[input.lang]).replace(/</g, '\\u003c');
  const labels = JSON.stringify(text).replace(/</g, '\\u003c');
  const figures = input.overview === undefined ? '' : `<script type="application/json" id="overview-figures">${JSON.stringify(input.overview).replace(/</g, '\\u003c')}</script>`;
  return (
    `<!doctype html><html lang="${input.lang}" data-theme="${input.theme}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(screenTitle(input.screen, text))} · ${escapeHtml(input.brand)}</title>` +
    `<link rel="stylesheet" href="${input.base}/assets/dashboard.css?v=${input.assetVersion}">` +
    `<script nonce="${input.nonce}" src="${input.base}/assets/dashboard.js?v=${input.assetVersion}" defer></script></head>` +
    `<body ${data}><a class="skip" href="#main">${escapeHtml(text.skip)}</a>${header(input, text)}${layout}` +
    `<script type="application/json" id="words">${words}</script><script type="application/json" id="labels">${labels}</script>${figures}</body></html>`
  );
}
