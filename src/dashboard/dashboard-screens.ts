import type { DashboardText } from './dashboard-text.js';
import { checkboxes, escapeHtml, field, form, select, table } from './dashboard-html.js';

/**
 * The main region of each screen. The server writes the labels and forms; the
 * script (assets/dashboard.js, keyed by `data-screen`) fills tables from the
 * API and submits the forms to it, so what a route accepts is decided once, by
 * the API.
 */
export type ScreenId =
  | 'sign-in'
  | 'onboarding'
  | 'overview'
  | 'shops'
  | 'shop'
  | 'invoices'
  | 'invoice'
  | 'payments'
  | 'keys'
  | 'webhooks'
  | 'deliveries'
  | 'events'
  | 'team'
  | 'profile'
  | 'security'
  | 'invite';

export interface ScreenContext {
  readonly text: DashboardText;
  /** Shown on sign-in when the identity provider is configured. */
  readonly providerUrl: string | undefined;
  /** Sign-in: the session exists but its second factor is still due. */
  readonly factorStep: boolean;
}

const EXPIRIES = ['1d', '7d', '30d', '180d', '365d'] as const;
const FILTERS = ['transfer', 'invoice', 'payout'] as const;

function signIn({ text, providerUrl, factorStep }: ScreenContext): string {
  const t = text.signIn;
  if (factorStep) {
    return (
      `<h1>${escapeHtml(t.factorTitle)}</h1><p>${escapeHtml(t.factorIntro)}</p>` +
      form('totp', 'totp', field('totp', 'code', t.totp, { required: true, attributes: ' inputmode="numeric" autocomplete="one-time-code"' }), t.confirm) +
      `<p><button type="button" id="passkey-factor">${escapeHtml(t.passkey)}</button></p><p class="error" id="passkey-error" role="alert"></p>` +
      `<details><summary>${escapeHtml(t.useRecovery)}</summary>` +
      form('recovery', 'recovery', field('recovery', 'code', t.recovery, { required: true, attributes: ' autocomplete="off"' }), t.confirm) +
      `</details>`
    );
  }
  const provider =
    providerUrl === undefined
      ? ''
      : `<p class="or">${escapeHtml(t.or)}</p><p><a class="button" href="${escapeHtml(providerUrl)}">${escapeHtml(t.provider)}</a></p>`;
  return (
    `<h1>${escapeHtml(t.title)}</h1>` +
    form('email', 'emailStart', field('email', 'email', t.email, { type: 'email', required: true, attributes: ' autocomplete="email"' }), t.sendCode) +
    form(
      'code',
      'emailVerify',
      `<p id="code-sent">${escapeHtml(t.codeSent)}</p>` +
        field('code', 'code', t.code, { required: true, attributes: ' inputmode="numeric" autocomplete="one-time-code"' }),
      t.verify,
      { hidden: true },
    ) +
    provider
  );
}

function onboarding({ text }: ScreenContext): string {
  const t = text.onboarding;
  // The e-mail field appears only when the API answers email_required (a wallet-only account).
  const email = `<div data-email-field hidden>${field('onboard', 'email', t.email, { type: 'email' })}</div>`;
  return `<h1>${escapeHtml(t.title)}</h1><p>${escapeHtml(t.intro)}</p>` + form('onboard', 'onboard', field('onboard', 'name', t.name, { required: true }) + email, t.submit);
}

function shops({ text }: ScreenContext): string {
  const t = text.shops;
  const body =
    field('shop', 'name', t.name, { required: true }) +
    select('shop', 'sandbox', t.mode, [
      ['true', t.sandbox],
      ['false', t.live],
    ]) +
    select('shop', 'payout_target', t.payoutTarget, [
      ['address', t.toRecipient],
      ['wallet', t.toServiceWallet],
    ]) +
    `<div data-recipient-field>${field('shop', 'recipient', t.recipient, { hint: t.recipientHint, attributes: ' autocomplete="off" spellcheck="false"' })}</div>` +
    field('shop', 'delegate', t.delegate, { attributes: ' autocomplete="off" spellcheck="false"' });
  return (
    `<h1>${escapeHtml(t.title)}</h1><p class="error" id="action-error" role="alert"></p>` +
    table('shops-table', t.title, [t.name, t.mode, t.recipient, t.created, t.state, text.common.actions], t.empty) +
    `<section data-write hidden><h2>${escapeHtml(t.create)}</h2>${form('shop', 'createShop', body, t.submit, { write: true })}</section>`
  );
}

function shop({ text }: ScreenContext): string {
  const t = text.shops;
  const targets: readonly (readonly [string, string])[] = [
    ['address', t.toAddress],
    ['wallet', t.toWallet],
  ];
  const payout =
    `<p class="hint">${escapeHtml(t.payoutHint)}</p>` +
    field('payout', 'recipient', t.recipient, { attributes: ' autocomplete="off" spellcheck="false"' }) +
    field('payout', 'delegate', t.delegate, { attributes: ' autocomplete="off" spellcheck="false"' }) +
    select('payout', 'solana_payout_target', t.solanaTarget, targets) +
    select('payout', 'tron_payout_target', t.tronTarget, targets);
  const recipient = (family: 'solana' | 'tron', label: string) =>
    form(`${family}-recipient`, 'setRecipient', field(`${family}-recipient`, 'address', label, { hint: t.immutable, attributes: ` data-family="${family}" autocomplete="off" spellcheck="false"` }), t.setRecipient, { write: true });
  const branding = field('branding', 'name', t.brandName, { attributes: ' autocomplete="off"' }) + field('branding', 'logo', t.logo, { type: 'file', attributes: ' accept="image/png,image/jpeg"' });
  return (
    `<p><a href="../shops">${escapeHtml(text.nav.shops)}</a></p><h1 id="shop-title">${escapeHtml(t.settings)}</h1><p id="shop-saved" role="status" hidden>${escapeHtml(t.saved)}</p>` +
    `<section data-write hidden><h2>${escapeHtml(t.payout)}</h2>${form('payout', 'savePayout', payout, t.savePayout, { write: true })}` +
    recipient('solana', t.solanaRecipient) +
    recipient('tron', t.tronRecipient) +
    `</section><section data-owner hidden><h2>${escapeHtml(t.branding)}</h2>${form('branding', 'saveBranding', branding, t.saveBranding)}</section>` +
    `<h2>${escapeHtml(t.terms)}</h2>` +
    table('terms-table', t.terms, [t.network, t.invoiceFee, t.depositFee, t.sweep], '—')
  );
}

function invoices({ text }: ScreenContext): string {
  const t = text.invoices;
  const filters =
    `<form id="filters" class="filters" data-filters>` +
    select('filters', 'kind', t.kind, [
      ['', t.anyKind],
      ['invoice', t.invoice],
      ['deposit', t.deposit],
    ]) +
    select('filters', 'status', t.status, [
      ['', t.anyStatus],
      ['registering', 'registering'],
      ['open', 'open'],
      ['funded', 'funded'],
      ['settled', 'settled'],
      ['reconciling', 'reconciling'],
    ]) +
    select('filters', 'cancelled', t.cancelledFilter, [
      ['', t.any],
      ['true', t.yes],
      ['false', t.no],
    ]) +
    select('filters', 'asset', t.network, [['', t.anyNetwork]], ' data-assets') +
    field('filters', 'external_id', t.externalId) +
    field('filters', 'created_after', t.createdAfter, { type: 'date' }) +
    field('filters', 'created_before', t.createdBefore, { type: 'date' }) +
    `<p class="error" data-form-error role="alert"></p><button type="submit">${escapeHtml(t.filter)}</button></form>`;
  const create =
    select('invoice', 'kind', t.kind, [
      ['invoice', t.invoice],
      ['deposit', t.deposit],
    ]) +
    select('invoice', 'asset', t.network, [], ' data-assets required') +
    // Filled by the script with a checkbox per token and network; more than one option makes a group (SPEC "Invoices and deposits": assets).
    `<fieldset class="field" id="invoice-assets" data-asset-checks aria-describedby="invoice-assets-error"><legend>${escapeHtml(t.alsoOffer)}</legend>` +
    `<p class="error" id="invoice-assets-error" data-error-for="assets"></p></fieldset>` +
    field('invoice', 'amount', t.amount, { required: true, attributes: ' inputmode="decimal" autocomplete="off"' }) +
    select(
      'invoice',
      'expires_in',
      t.expiresIn,
      EXPIRIES.map((value) => [value, value] as const),
    ) +
    field('invoice', 'external_id', t.externalId, { attributes: ' autocomplete="off"' }) +
    field('invoice', 'description', t.description, { attributes: ' autocomplete="off"' });
  return (
    `<h1>${escapeHtml(t.title)}</h1><p class="muted" data-no-shop hidden>${escapeHtml(t.noShop)}</p>` +
    `<details data-write hidden><summary>${escapeHtml(t.create)}</summary>${form('invoice', 'createInvoice', create, t.submit, { write: true })}</details>` +
    `<details><summary>${escapeHtml(t.filter)}</summary>${filters}</details>` +
    table('invoices-table', t.title, [t.created, t.kind, t.amount, t.received, t.status, t.externalId], t.empty) +
    `<p><button type="button" id="more" hidden>${escapeHtml(t.more)}</button></p>`
  );
}

function invoice({ text }: ScreenContext): string {
  const t = text.invoices;
  return (
    `<p><a href="../invoices">${escapeHtml(t.back)}</a></p><h1>${escapeHtml(t.detail)}</h1>` +
    `<p id="invoice-status" role="status" aria-live="polite"></p>` +
    `<dl id="invoice-facts"></dl>` +
    `<p><img id="invoice-qr" alt="${escapeHtml(t.qr)}" width="208" height="208" hidden></p>` +
    `<div data-write hidden id="invoice-actions">` +
    `<div data-sandbox-only hidden class="sandbox-box">` +
    field('simulate', 'amount', t.simulateAmount, { attributes: ' inputmode="decimal" autocomplete="off"' }) +
    `<p class="error" id="simulate-error" role="alert"></p>` +
    `<button type="button" data-simulate="transfer.confirmed">${escapeHtml(t.simulatePayment)}</button>` +
    `<button type="button" data-simulate="invoice.closed">${escapeHtml(t.simulateClosing)}</button>` +
    `<button type="button" data-simulate="transfer.reverted">${escapeHtml(t.simulateReversal)}</button></div>` +
    `<p><button type="button" id="cancel-invoice" data-confirm="${escapeHtml(t.cancelConfirm)}" hidden>${escapeHtml(t.cancel)}</button>` +
    `<button type="button" id="toggle-deposit" data-pause="${escapeHtml(t.pause)}" data-enable="${escapeHtml(t.enable)}" hidden></button></p>` +
    `<p class="error" id="action-error" role="alert"></p></div>` +
    `<h2>${escapeHtml(t.transfers)}</h2>` +
    table('transfers-table', t.transfers, [text.common.time, text.payments.type, text.common.amount, text.common.status, text.payments.tx], t.noTransfers) +
    `<p><button type="button" id="transfers-more" data-more="transfers" hidden>${escapeHtml(t.moreTransfers)}</button></p>` +
    `<h2>${escapeHtml(t.events)}</h2>` +
    table('invoice-events-table', t.events, [text.common.time, text.events.type, text.events.deliveries], t.noEvents) +
    `<p><button type="button" id="invoice-events-more" data-more="events" hidden>${escapeHtml(t.moreEvents)}</button></p>` +
    // Outside the write controls: a viewer reads the history too, and must see when it failed to load.
    `<p class="error" id="history-error" role="alert"></p>`
  );
}

function keys({ text }: ScreenContext): string {
  const t = text.keys;
  const body =
    field('key', 'name', t.name, { required: true, attributes: ' autocomplete="off"' }) +
    checkboxes('key', 'scopes', t.scopes, [
      ['read', t.read, true],
      ['write', t.write, true],
    ]) +
    field('key', 'allowed_ips', t.allowedIps, { attributes: ' autocomplete="off" spellcheck="false"' });
  return (
    `<h1>${escapeHtml(t.title)}</h1>` +
    `<div id="secret-box" class="secret" role="status" hidden><p>${escapeHtml(t.tokenOnce)}</p><code id="secret-value"></code> ` +
    `<button type="button" data-copy-target="secret-value">${escapeHtml(text.common.copy)}</button></div>` +
    table('keys-table', t.title, [t.name, t.scopesAndIps, t.prefix, t.lastUsed, text.common.status, text.common.actions], t.empty) +
    `<section data-write hidden><h2>${escapeHtml(t.create)}</h2>${form('key', 'createKey', body, t.submit, { write: true })}</section>`
  );
}

function webhooks({ text }: ScreenContext): string {
  const t = text.webhooks;
  const body =
    field('webhook', 'url', t.url, { type: 'url', required: true, attributes: ' autocomplete="off" spellcheck="false"' }) +
    checkboxes(
      'webhook',
      'filters',
      t.filters,
      FILTERS.map((name) => [name, `${name}.*`, true] as const),
    );
  return (
    `<h1>${escapeHtml(t.title)}</h1>` +
    `<div id="secret-box" class="secret" role="status" hidden><p>${escapeHtml(t.secretOnce)}</p><code id="secret-value"></code> ` +
    `<button type="button" data-copy-target="secret-value">${escapeHtml(text.common.copy)}</button></div>` +
    table('webhooks-table', t.title, ['URL', t.filters, text.common.status, text.common.actions], t.empty) +
    `<section data-write hidden><h2>${escapeHtml(t.create)}</h2>${form('webhook', 'createWebhook', body, t.submit, { write: true })}</section>`
  );
}

function deliveries({ text }: ScreenContext): string {
  const t = text.deliveries;
  return (
    `<h1>${escapeHtml(t.title)}</h1>` +
    table('deliveries-table', t.title, [text.common.time, t.event, text.common.status, t.httpStatus, t.time, t.attempts, text.common.actions], t.empty) +
    `<p class="error" id="action-error" role="alert"></p>`
  );
}

function events({ text }: ScreenContext): string {
  const t = text.events;
  return `<h1>${escapeHtml(t.title)}</h1>` + table('events-table', t.title, [text.common.time, t.type, text.common.id, t.deliveries], t.empty);
}

/** Decision 0038: the payments list's filters, the same on the CSV export. */
const PAYMENT_STATUSES = ['observed', 'confirmed', 'reverted', 'scheduled', 'waiting_gas', 'sending', 'sent', 'failed', 'cancelled', 'simulated'] as const;

function payments({ text }: ScreenContext): string {
  const t = text.payments;
  const i = text.invoices;
  const filters =
    `<form id="filters" class="filters" data-filters>` +
    select('filters', 'type', t.type, [
      ['', t.anyType],
      ['transfer', t.transfer],
      ['payout', t.payout],
    ]) +
    select('filters', 'status', i.status, [['', i.anyStatus], ...PAYMENT_STATUSES.map((status) => [status, status] as const)]) +
    select('filters', 'asset', i.network, [['', i.anyNetwork]], ' data-assets') +
    field('filters', 'created_after', i.createdAfter, { type: 'date' }) +
    field('filters', 'created_before', i.createdBefore, { type: 'date' }) +
    `<p class="error" data-form-error role="alert"></p><button type="submit">${escapeHtml(t.filter)}</button></form>`;
  return (
    `<h1>${escapeHtml(t.title)}</h1>` +
    `<details><summary>${escapeHtml(t.filters)}</summary>${filters}</details>` +
    `<p><a class="button" id="export-csv" href="#" aria-describedby="export-hint">${escapeHtml(t.export)}</a> <span class="hint" id="export-hint">${escapeHtml(t.exportHint)}</span></p>` +
    table('payments-table', t.title, [text.common.time, t.type, text.common.amount, text.common.status, t.tx], t.empty) +
    `<p><button type="button" id="more" hidden>${escapeHtml(text.invoices.more)}</button></p>`
  );
}

function overview({ text }: ScreenContext): string {
  const t = text.overview;
  return `<h1>${escapeHtml(t.title)}</h1><div id="overview-cards" class="cards" aria-live="polite"></div>`;
}

function team({ text }: ScreenContext): string {
  const t = text.team;
  const body =
    field('team', 'subject', t.email, { type: 'email', required: true, attributes: ' autocomplete="off"' }) +
    select('team', 'role', t.role, [
      ['viewer', t.viewer],
      ['developer', t.developer],
      ['owner', t.owner],
    ]) +
    select('team', 'shop_id', t.scope, [['', t.allShops]], ' data-shops');
  return (
    `<h1>${escapeHtml(t.title)}</h1><p class="error" id="action-error" role="alert"></p>` +
    `<h2>${escapeHtml(t.members)}</h2>` +
    table('members-table', t.members, [t.email, t.role, t.scope, t.since, text.common.actions], t.noMembers) +
    `<h2>${escapeHtml(t.invitations)}</h2>` +
    table('invitations-table', t.invitations, [t.email, t.role, t.scope, t.expires, text.common.actions], t.noInvitations) +
    `<section data-write hidden><h2>${escapeHtml(t.invite)}</h2><p id="team-sent" role="status" hidden>${escapeHtml(t.sent)}</p>${form('team', 'invite', body, t.submit, { write: true })}</section>`
  );
}

function profile({ text }: ScreenContext): string {
  const t = text.profile;
  const body =
    field('profile', 'display_name', t.displayName, { attributes: ' autocomplete="name"' }) +
    select('profile', 'language', t.language, [
      ['en', 'English'],
      ['ru', 'Русский'],
    ]) +
    select('profile', 'theme', t.theme, [
      ['system', text.header.system],
      ['light', text.header.light],
      ['dark', text.header.dark],
    ]);
  const avatar =
    `<p><img id="avatar-image" alt="${escapeHtml(t.avatarAlt)}" width="96" height="96" hidden></p>` +
    field('avatar', 'image_base64', t.avatar, { type: 'file', attributes: ' accept="image/png,image/jpeg"' });
  return (
    `<h1>${escapeHtml(t.title)}</h1><p id="profile-saved" role="status" hidden>${escapeHtml(t.saved)}</p>` +
    form('profile', 'saveProfile', body, t.submit) +
    form('avatar', 'uploadAvatar', avatar, t.upload)
  );
}

function security({ text }: ScreenContext): string {
  const t = text.security;
  const enrollForm = form('totp-enroll', 'confirmTotp', field('totp-enroll', 'code', t.code, { required: true, attributes: ' inputmode="numeric" autocomplete="one-time-code"' }), t.confirm, { hidden: true });
  return (
    `<h1>${escapeHtml(t.title)}</h1><p class="error" id="action-error" role="alert"></p>` +
    `<h2>${escapeHtml(t.totpTitle)}</h2><p id="totp-state" data-on="${escapeHtml(t.totpOn)}" data-off="${escapeHtml(t.totpOff)}"></p>` +
    `<p><button type="button" id="totp-start" hidden>${escapeHtml(t.enroll)}</button></p>` +
    `<div id="totp-setup" hidden><p>${escapeHtml(t.scan)}</p><p><img id="totp-qr" alt="${escapeHtml(t.qr)}" width="208" height="208"></p>` +
    `<p>${escapeHtml(t.secret)}: <code id="totp-secret" class="mono"></code></p>${enrollForm}</div>` +
    `<div id="recovery-box" class="secret" role="status" hidden><h2>${escapeHtml(t.recoveryTitle)}</h2><p>${escapeHtml(t.recoveryOnce)}</p>` +
    `<pre id="recovery-codes" class="mono"></pre><button type="button" data-copy-target="recovery-codes">${escapeHtml(text.common.copy)}</button></div>` +
    `<h2>${escapeHtml(t.passkeysTitle)}</h2>` +
    table('passkeys-table', t.passkeysTitle, [t.name, text.invoices.created, text.common.actions], t.noPasskeys) +
    form('passkey', 'addPasskey', field('passkey', 'name', t.passkeyName, { attributes: ' autocomplete="off"' }), t.addPasskey) +
    `<h2>${escapeHtml(t.methodsTitle)}</h2>` +
    table('identities-table', t.methodsTitle, [t.provider, t.name, text.common.actions], '—')
  );
}

function invite({ text }: ScreenContext): string {
  const t = text.invite;
  return (
    `<h1>${escapeHtml(t.title)}</h1><p>${escapeHtml(t.intro)}</p>` +
    `<p id="invite-done" role="status" hidden>${escapeHtml(t.accepted)}</p>` +
    form('invite', 'acceptInvite', '', t.accept)
  );
}

export function screenMain(screen: ScreenId, context: ScreenContext): string {
  switch (screen) {
    case 'sign-in':
      return signIn(context);
    case 'onboarding':
      return onboarding(context);
    case 'overview':
      return overview(context);
    case 'shops':
      return shops(context);
    case 'shop':
      return shop(context);
    case 'invoices':
      return invoices(context);
    case 'invoice':
      return invoice(context);
    case 'payments':
      return payments(context);
    case 'keys':
      return keys(context);
    case 'webhooks':
      return webhooks(context);
    case 'deliveries':
      return deliveries(context);
    case 'events':
      return events(context);
    case 'invite':
      return invite(context);
    case 'team':
      return team(context);
    case 'profile':
      return profile(context);
    case 'security':
      return security(context);
  }
}

/** The document title of a screen. */
export function screenTitle(screen: ScreenId, text: DashboardText): string {
  const titles: Record<ScreenId, string> = {
    'sign-in': text.signIn.title,
    onboarding: text.onboarding.title,
    overview: text.nav.overview,
    shops: text.nav.shops,
    shop: text.shops.settings,
    invoices: text.nav.invoices,
    invoice: text.invoices.detail,
    payments: text.nav.payments,
    keys: text.nav.keys,
    webhooks: text.nav.webhooks,
    deliveries: text.nav.deliveries,
    events: text.nav.events,
    team: text.nav.team,
    profile: text.nav.profile,
    security: text.nav.security,
    invite: text.invite.title,
  };
  return titles[screen];
}
