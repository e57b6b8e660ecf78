import { addressCodec, familyRules } from '../chains/index.js';
import { paymentUrl } from '../issuances/index.js';
import { formatDecimal } from '../money/index.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './checkout-page-assets.js';
import { groupDigits, LANGS, TEXT, type Lang, type PageText } from './checkout-page-text.js';
import { checkoutPhase, FINAL_PHASES, type Checkout, type CheckoutGroup, type CheckoutOption, type CheckoutPhase } from './checkout.js';
import type { FoundCheckout } from './get-checkout.js';
import { paymentUri, qrSvg } from './payment-uri.js';

/**
 * The hosted payment page, rendered on the server as one HTML string: no
 * framework, no external resource. Every value that comes from a merchant or
 * the database goes through `escapeHtml`; the only script is the inline one
 * (checkout-page-assets.ts), allowed by the per-response nonce of the
 * Content-Security-Policy. Regions the live update may swap carry
 * `data-part` and a stable id.
 */

export interface PageOptions {
  readonly now: Date;
  readonly payUrl: string;
  /** Where the page polls, relative to its own origin (`/api/v1/checkout/`). */
  readonly pollPath: string;
  readonly nonce: string;
  readonly lang: Lang;
  /** The issuance's Solana Pay reference, for the wallet request (Solana only; decision 0039). */
  readonly paymentReference?: string | undefined;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

/** The Content-Security-Policy of every hosted page: nothing but our origin and the nonced inline script and style. */
export function pageSecurityPolicy(nonce: string, imageOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    // Branding logos are served from `{base_url}`, which may be another origin than `{pay_url}`.
    `img-src 'self' ${imageOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * What the polling script compares: when the checkout's answer differs from
 * this, the page fetches itself again and swaps the changed parts. Kept in
 * step with `stateOf` in PAGE_SCRIPT. It holds whether an address exists,
 * never the address itself.
 */
export function pollState(view: Checkout | CheckoutGroup): string {
  if ('group' in view) {
    const allocated = view.options.map((option) => `${option.address === '' ? '0' : '1'}${option.received}`).join(',');
    return [view.status, view.cancelled_at ?? '', view.disabled_at ?? '', view.paid_public_id ?? '', allocated].join('|');
  }
  return [view.status, view.address === '' ? '0' : '1', view.cancelled_at ?? '', view.disabled_at ?? '', view.received, view.tx_hash].join('|');
}

const CLOSED_PHASES: readonly CheckoutPhase[] = ['cancelled', 'expired', 'paused', 'review', 'elsewhere'];
const PAID_PHASES: readonly CheckoutPhase[] = ['funded', 'settled'];

/** The key of the words for a phase: a deposit awaiting payment and a blocked merchant's cancel have their own. */
function wordsKey(phase: CheckoutPhase, view: Checkout | CheckoutGroup): string {
  if (phase === 'awaiting' && view.kind === 'deposit') return 'awaitingDeposit';
  if (phase === 'cancelled' && view.cancel_reason === 'merchant_blocked') return 'blocked';
  return phase;
}

function statusPart(phase: CheckoutPhase, view: Checkout | CheckoutGroup, text: PageText): string {
  const key = wordsKey(phase, view);
  const tone = PAID_PHASES.includes(phase) ? 'status paid' : CLOSED_PHASES.includes(phase) ? 'status closed' : 'status';
  return (
    `<div id="status" data-part class="${tone}" role="status" aria-live="polite" data-phase="${phase}">` +
    `<h2>${escapeHtml(text.titles[key] ?? '')}</h2><p>${escapeHtml(text.details[key] ?? '')}</p></div>`
  );
}

function sameToken(option: CheckoutOption, address: string): boolean {
  return addressCodec(option.family).same(address, option.token);
}

function tokenSymbol(option: CheckoutOption): string {
  return option.network.tokens.find((token) => sameToken(option, token.address))?.symbol ?? option.token;
}

/** "12,500.5 USDC" from base units. */
function tokenAmount(option: CheckoutOption, baseUnits: bigint, lang: Lang): string {
  return `${groupDigits(formatDecimal(baseUnits, option.token_decimals), lang)} ${tokenSymbol(option)}`;
}

/** "0x8335…2913": enough to tell two contracts apart at a glance. */
function shorten(value: string): string {
  return value.length <= 14 ? value : `${value.slice(0, 6)}…${value.slice(-4)}`;
}

/** An address in groups of four for reading; the spans add no characters, so selecting it copies it whole. */
function groupedAddress(address: string): string {
  return (address.match(/.{1,4}/g) ?? []).map((chunk) => `<span>${escapeHtml(chunk)}</span>`).join('');
}

/** A UTC time without script; the script rewrites every `time[data-local]` in the payer's local time. */
function timeElement(value: Date | string, id?: string): string {
  const iso = typeof value === 'string' ? value : value.toISOString();
  return `<time${id === undefined ? '' : ` id="${id}"`} data-local datetime="${escapeHtml(iso)}">${escapeHtml(`${iso.slice(0, 16).replace('T', ' ')} UTC`)}</time>`;
}

/** Only web links are rendered: a merchant-supplied `javascript:` URL must never become clickable. */
function safeWebUrl(value: string): string | undefined {
  if (value === '') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A transaction's page on the network's explorer, when the network names one (sandbox hashes are not on any chain). */
function explorerTxUrl(option: CheckoutOption, hash: string): string | undefined {
  const explorer = option.sandbox ? undefined : safeWebUrl(option.network.explorer_url);
  if (explorer === undefined) return undefined;
  return addressCodec(option.family).explorerTxUrl(explorer, hash);
}

function languageSwitch(lang: Lang, text: PageText): string {
  const links = LANGS.map((other) =>
    other === lang
      ? `<a href="?lang=${other}" lang="${other}" aria-current="true">${other.toUpperCase()}</a>`
      : `<a href="?lang=${other}" lang="${other}" hreflang="${other}" title="${escapeHtml(TEXT[other].languageName)}">${other.toUpperCase()}</a>`,
  ).join(' ');
  return `<nav aria-label="${escapeHtml(text.languageSwitch)}">${links}</nav>`;
}

function header(view: Checkout | CheckoutGroup, lang: Lang, text: PageText): string {
  const logoUrl = view.branding.logo_url === undefined ? undefined : safeWebUrl(view.branding.logo_url);
  const logo = logoUrl === undefined ? '' : `<img src="${escapeHtml(logoUrl)}" alt="" width="48" height="48">`;
  const merchant = view.merchant_name === view.branding.name ? '' : `<p class="merchant">${escapeHtml(view.merchant_name)}</p>`;
  const sandbox = view.sandbox ? `<p><span class="sandbox">${escapeHtml(text.sandbox)}</span></p>` : '';
  const description = view.description === '' ? '' : `<p class="muted">${escapeHtml(view.description)}</p>`;
  return `<header>${logo}<div><h1>${escapeHtml(view.branding.name)}</h1>${merchant}</div>${languageSwitch(lang, text)}</header>${sandbox}${description}`;
}

function footer(view: Checkout | CheckoutGroup, text: PageText): string {
  const returnUrl = safeWebUrl(view.return_url);
  return returnUrl === undefined ? '' : `<p><a href="${escapeHtml(returnUrl)}" rel="noopener noreferrer">${escapeHtml(text.backTo(view.branding.name))}</a></p>`;
}

function part(id: string, content: string): string {
  return `<div id="${id}" data-part>${content}</div>`;
}

function amountsPart(view: Checkout, phase: CheckoutPhase, lang: Lang, text: PageText): string {
  const symbol = escapeHtml(tokenSymbol(view));
  const head =
    view.kind === 'deposit'
      ? `<p class="label">${escapeHtml(text.sendAnyAmountOf)}</p><p class="amount">${symbol}</p>`
      : `<p class="label">${escapeHtml(text.amount)}</p><p class="amount">${escapeHtml(tokenAmount(view, BigInt(view.amount), lang))}</p>`;
  const contract =
    `<details><summary>${escapeHtml(text.on(view.network.name))} · ${escapeHtml(text.tokenContracts[view.family] ?? text.tokenContract)} ` +
    `<span class="hash">${escapeHtml(shorten(view.token))}</span></summary><span class="hash">${escapeHtml(view.token)}</span></details>`;
  let progress = '';
  if (view.kind === 'invoice' && phase === 'partial') {
    const remaining = BigInt(view.amount) - BigInt(view.received);
    progress =
      `<dl><dt>${escapeHtml(text.received)}</dt><dd>${escapeHtml(tokenAmount(view, BigInt(view.received), lang))}</dd>` +
      `<dt>${escapeHtml(text.remaining)}</dt><dd id="remaining">${escapeHtml(tokenAmount(view, remaining > 0n ? remaining : 0n, lang))}</dd></dl>`;
  }
  return part('amounts', head + contract + progress);
}

/** What is still to pay in base units: the invoice less what arrived; null for a deposit (the payer chooses). */
function amountDue(view: Checkout): bigint | null {
  if (view.kind === 'deposit') return null;
  const due = BigInt(view.amount) - BigInt(view.received);
  return due > 0n ? due : 0n;
}

/** What the wallet shows beside the request: the invoice's description, or which invoice it is. */
function walletMessage(view: Checkout, text: PageText): string | undefined {
  if (view.description.trim() !== '') return view.description;
  return view.kind === 'invoice' ? text.invoiceMessage(view.public_id) : undefined;
}

function payParts(view: Checkout, phase: CheckoutPhase, reference: string | undefined, text: PageText): string {
  const payable = phase === 'awaiting' || phase === 'partial';
  if (!payable || view.address === '') return part('pay-address', '') + part('pay-qr', '');
  const symbol = tokenSymbol(view);
  const address =
    `<p class="label" id="address-label">${escapeHtml(text.sendTo(symbol, view.network.name))}</p>` +
    `<code class="addr" id="address" aria-labelledby="address-label">${groupedAddress(view.address)}</code>` +
    `<button id="copy" type="button" data-copy="${escapeHtml(view.address)}" aria-controls="address">${escapeHtml(text.copyAddress)}</button>`;
  const due = amountDue(view);
  const uri = paymentUri({
    family: view.family,
    chainId: view.chain_id,
    token: view.token,
    tokenDecimals: view.token_decimals,
    address: view.address,
    amount: due,
    reference,
    label: view.branding.name,
    message: walletMessage(view, text),
  });
  const links: string[] = [];
  const rules = familyRules(view.family);
  if (rules.paymentUriOpensWallet) links.push(`<a class="button" id="open-wallet" href="${escapeHtml(uri)}">${escapeHtml(text.openInWallet)}</a>`);
  if (rules.browserWalletPayment && due !== null) {
    links.push(
      `<button id="wallet" class="primary" type="button" hidden data-chain="0x${view.chain_id.toString(16)}" data-token="${escapeHtml(view.token)}"` +
        ` data-to="${escapeHtml(view.address)}" data-amount="${due.toString()}">${escapeHtml(text.payWithBrowserWallet)}</button>`,
    );
  }
  const qr =
    `<div class="center" id="qr-box" data-uri="${escapeHtml(uri)}">${qrSvg(uri, escapeHtml(text.qrLabel)).replace('<svg ', '<svg class="qr" id="qr-code" ')}` +
    `<p class="muted" id="scan-hint">${escapeHtml(text.scanHints[view.family] ?? text.scanHint)}</p>${links.join('')}<p class="muted hash" id="wallet-result" aria-live="polite"></p></div>`;
  return part('pay-address', address) + part('pay-qr', qr);
}

function expiryPart(view: Checkout | CheckoutGroup, phase: CheckoutPhase, text: PageText): string {
  const open = phase === 'awaiting' || phase === 'partial' || phase === 'preparing';
  if (!open || view.kind !== 'invoice' || view.expires_at === null) return part('expiry', '');
  return part('expiry', `<p class="muted">${escapeHtml(text.expires)} ${timeElement(view.expires_at, 'expires')} <span id="left"></span></p>`);
}

function receipt(view: CheckoutOption, paidAt: Date | null, lang: Lang, text: PageText): string {
  const rows = [`<dt>${escapeHtml(text.amountReceived)}</dt><dd>${escapeHtml(tokenAmount(view, BigInt(view.received), lang))}</dd>`];
  if (view.tx_hash !== '') {
    const url = explorerTxUrl(view, view.tx_hash);
    const hash = `<span class="hash" id="tx-hash">${escapeHtml(view.tx_hash)}</span>`;
    const link = url === undefined ? '' : `<br><a id="explorer" href="${escapeHtml(url)}" rel="noopener noreferrer">${escapeHtml(text.viewOnExplorer)}</a>`;
    rows.push(`<dt>${escapeHtml(text.transaction)}</dt><dd>${hash}${link}</dd>`);
  }
  if (paidAt !== null) rows.push(`<dt>${escapeHtml(text.paidAt)}</dt><dd>${timeElement(paidAt)}</dd>`);
  return `<h2>${escapeHtml(text.receipt)}</h2><dl>${rows.join('')}</dl>`;
}

function receiptPart(view: Checkout, phase: CheckoutPhase, paidAt: Date | null, lang: Lang, text: PageText): string {
  return part('receipt', PAID_PHASES.includes(phase) ? receipt(view, paidAt, lang, text) : '');
}

function singleBody(view: Checkout, phase: CheckoutPhase, paidAt: Date | null, reference: string | undefined, lang: Lang, text: PageText): string {
  return (
    amountsPart(view, phase, lang, text) +
    statusPart(phase, view, text) +
    payParts(view, phase, reference, text) +
    expiryPart(view, phase, text) +
    receiptPart(view, phase, paidAt, lang, text)
  );
}

function groupBody(view: CheckoutGroup, phase: CheckoutPhase, payUrl: string, lang: Lang, text: PageText): string {
  let list = '';
  if (phase === 'awaiting' || phase === 'preparing' || phase === 'partial') {
    const symbols = [...new Set(view.options.map(tokenSymbol))].join(' / ');
    const label = view.kind === 'invoice' ? text.payWithOneOf(`${groupDigits(view.amount, lang)} ${symbols}`) : text.chooseNetwork;
    const items = view.options.map((option) => {
      const name = view.kind === 'invoice' ? tokenAmount(option, BigInt(option.amount), lang) : tokenSymbol(option);
      return (
        `<li><a href="${escapeHtml(paymentUrl(payUrl, option.public_id))}">${escapeHtml(name)} ` +
        `<span class="muted">${escapeHtml(text.on(option.network.name))} · <span class="hash">${escapeHtml(shorten(option.token))}</span></span></a></li>`
      );
    });
    list = `<p class="label">${escapeHtml(label)}</p><ul>${items.join('')}</ul>`;
  }
  let paid = '';
  const paidOption = view.options.find((option) => option.public_id === view.paid_public_id);
  if (paidOption !== undefined && PAID_PHASES.includes(phase)) {
    paid = receipt(paidOption, null, lang, text);
  }
  return statusPart(phase, view, text) + part('options', list + paid) + expiryPart(view, phase, text);
}

function page(lang: Lang, title: string, nonce: string, attributes: string, content: string): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${PAGE_STYLE}</style></head>
<body${attributes}><main>${content}</main><script nonce="${nonce}">${PAGE_SCRIPT}</script></body></html>`;
}

/** The words the script needs, as data attributes (the page has one script, and it carries no text of its own). */
function scriptWords(lang: Lang, text: PageText): string {
  return (
    ` data-lang="${lang}" data-l-copied="${escapeHtml(text.copied)}" data-l-press="${escapeHtml(text.pressToCopy)}"` +
    ` data-l-left="${escapeHtml(text.timeLeft)}" data-l-sent="${escapeHtml(text.walletSent)}" data-l-failed="${escapeHtml(text.walletFailed)}"`
  );
}

export function renderCheckoutPage(found: FoundCheckout, options: PageOptions): string {
  const { view } = found;
  const { lang } = options;
  const text = TEXT[lang];
  const phase =
    found.type === 'group'
      ? checkoutPhase(found.view, options.now)
      : checkoutPhase(found.view, options.now, found.paidElsewhere);
  const content =
    header(view, lang, text) +
    (found.type === 'group' ? groupBody(found.view, phase, options.payUrl, lang, text) : singleBody(found.view, phase, found.paidAt, options.paymentReference, lang, text)) +
    footer(view, text);
  // An option of a group polls the group: only the group's answer changes when another option is paid.
  const polled = found.type === 'single' && found.groupPublicId !== null ? found.groupPublicId : view.public_id;
  // Its first poll then differs from this state and refreshes the page once, which is harmless.
  const attributes =
    ` data-final="${FINAL_PHASES.includes(phase) ? 'yes' : 'no'}" data-poll-url="${escapeHtml(options.pollPath + encodeURIComponent(polled))}"` +
    ` data-state="${escapeHtml(pollState(view))}"${scriptWords(lang, text)}`;
  return page(lang, text.pageTitle(view.branding.name), options.nonce, attributes, content);
}

export function renderNotFoundPage(nonce: string, lang: Lang): string {
  const text = TEXT[lang];
  const content =
    `<header><div><h1>${escapeHtml(text.notFoundTitle)}</h1></div>${languageSwitch(lang, text)}</header>` +
    `<div class="status closed" role="status"><p>${escapeHtml(text.notFoundText)}</p></div>`;
  return page(lang, text.notFoundTitle, nonce, ` data-final="yes"${scriptWords(lang, text)}`, content);
}
