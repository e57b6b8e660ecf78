import { paymentUrl } from '../issuances/index.js';
import { formatDecimal } from '../money/index.js';
import { checkoutPhase, type Checkout, type CheckoutGroup, type CheckoutOption, type CheckoutPhase } from './checkout.js';
import type { FoundCheckout } from './get-checkout.js';

/**
 * The hosted payment page, rendered on the server as one HTML string: no
 * framework, no external resource. Every value that comes from a merchant or
 * the database goes through `escapeHtml`; the only script is the inline one
 * below, allowed by the per-response nonce of the Content-Security-Policy.
 */

export interface PageOptions {
  readonly now: Date;
  readonly payUrl: string;
  /** Where the page polls, relative to its own origin (`/api/v1/checkout/`). */
  readonly pollPath: string;
  readonly nonce: string;
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
 * this, the page reloads and is rendered again here. Kept in step with
 * `stateOf` in POLL_SCRIPT. It holds whether an address exists, never the
 * address itself, so a closed page carries no payable address anywhere.
 */
export function pollState(view: Checkout | CheckoutGroup): string {
  if ('group' in view) {
    const allocated = view.options.map((option) => (option.address === '' ? '0' : '1')).join('');
    return [view.status, view.cancelled_at ?? '', view.disabled_at ?? '', view.paid_public_id ?? '', allocated].join('|');
  }
  return [view.status, view.address === '' ? '0' : '1', view.cancelled_at ?? '', view.disabled_at ?? '', view.received].join('|');
}

const POLL_SCRIPT = `(function () {
  var body = document.body;
  var copy = document.getElementById('copy');
  if (copy) copy.addEventListener('click', function () {
    navigator.clipboard.writeText(copy.getAttribute('data-address') || '').then(function () { copy.textContent = 'Copied'; });
  });
  if (body.getAttribute('data-poll') !== 'yes') return;
  function stateOf(c) {
    return c.group
      ? [c.status, c.cancelled_at || '', c.disabled_at || '', c.paid_public_id || '', c.options.map(function (o) { return o.address ? '1' : '0'; }).join('')].join('|')
      : [c.status, c.address ? '1' : '0', c.cancelled_at || '', c.disabled_at || '', c.received].join('|');
  }
  var url = body.getAttribute('data-poll-url');
  var seen = body.getAttribute('data-state');
  setInterval(function () {
    fetch(url, { cache: 'no-store', credentials: 'omit' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) { if (c && stateOf(c) !== seen) location.reload(); })
      .catch(function () {});
  }, 5000);
})();`;

const STYLE = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f5f4;color:#1c1917}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
header{display:flex;align-items:center;gap:.75rem}header img{width:3rem;height:3rem;object-fit:contain}
h1{font-size:1.25rem;margin:0}.merchant,.label,.muted{color:#78716c;font-size:.875rem;margin:.25rem 0}
.sandbox{display:inline-block;background:#fef3c7;color:#92400e;border-radius:.25rem;padding:.125rem .5rem;font-size:.75rem}
.amount{font-size:1.75rem;font-weight:600;margin:.25rem 0}.status{font-weight:600;padding:.5rem .75rem;border-radius:.5rem;background:#e7e5e4}
.status.closed{background:#fee2e2;color:#991b1b}.status.paid{background:#dcfce7;color:#166534}
code{display:block;word-break:break-all;background:#f5f5f4;padding:.5rem;border-radius:.375rem;font-size:.9rem}
button{margin-top:.5rem;padding:.375rem .75rem;border:1px solid #d6d3d1;border-radius:.375rem;background:#fff;cursor:pointer}
ul{list-style:none;padding:0}li a{display:block;padding:.75rem;margin:.5rem 0;border:1px solid #d6d3d1;border-radius:.5rem;color:inherit;text-decoration:none}`;

const CLOSED_PHASES: readonly CheckoutPhase[] = ['cancelled', 'expired', 'paused', 'review'];

function statusText(phase: CheckoutPhase, kind: 'invoice' | 'deposit', paidElsewhere: boolean): string {
  switch (phase) {
    case 'preparing':
      return 'Preparing the payment address…';
    case 'payable':
      return kind === 'deposit' ? 'Open for payments' : 'Waiting for payment';
    case 'paid':
      return paidElsewhere ? 'Closed: this invoice was paid with another option.' : 'Payment received. Thank you!';
    case 'cancelled':
      return 'Closed: this checkout was cancelled. Do not send funds.';
    case 'expired':
      return 'Closed: this checkout has expired. Do not send funds.';
    case 'paused':
      return 'Closed: this address is paused. Do not send funds.';
    case 'review':
      return 'Closed: this payment is under review.';
  }
}

function statusClass(phase: CheckoutPhase): string {
  if (phase === 'paid') return 'status paid';
  return CLOSED_PHASES.includes(phase) ? 'status closed' : 'status';
}

function tokenSymbol(option: CheckoutOption): string {
  const sameAddress = (address: string) =>
    option.family === 'evm' ? address.toLowerCase() === option.token.toLowerCase() : address === option.token;
  return option.network.tokens.find((token) => sameAddress(token.address))?.symbol ?? option.token;
}

/** "10.5 USDC" from base units; deposits have no amount to show. */
function tokenAmount(option: CheckoutOption, baseUnits: string): string {
  return `${formatDecimal(BigInt(baseUnits), option.token_decimals)} ${tokenSymbol(option)}`;
}

function formatTime(value: string): string {
  return `${value.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Only web links are rendered: a merchant-supplied `javascript:` URL must never become clickable. */
function safeReturnUrl(value: string): string | undefined {
  if (value === '') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function header(view: Checkout | CheckoutGroup): string {
  const logo = view.branding.logo_url === undefined ? '' : `<img src="${escapeHtml(view.branding.logo_url)}" alt="">`;
  const merchant =
    view.merchant_name === view.branding.name ? '' : `<p class="merchant">${escapeHtml(view.merchant_name)}</p>`;
  const sandbox = view.sandbox ? '<p><span class="sandbox">Sandbox: no real funds</span></p>' : '';
  const description = view.description === '' ? '' : `<p class="muted">${escapeHtml(view.description)}</p>`;
  return `<header>${logo}<div><h1>${escapeHtml(view.branding.name)}</h1>${merchant}</div></header>${sandbox}${description}`;
}

function footer(view: Checkout | CheckoutGroup): string {
  const returnUrl = safeReturnUrl(view.return_url);
  return returnUrl === undefined ? '' : `<p><a href="${escapeHtml(returnUrl)}" rel="noopener noreferrer">Back to ${escapeHtml(view.branding.name)}</a></p>`;
}

function singleBody(view: Checkout, phase: CheckoutPhase, paidElsewhere: boolean): string {
  const network = escapeHtml(view.network.name);
  const amount =
    view.kind === 'deposit'
      ? `<p class="label">Send any amount of</p><p class="amount">${escapeHtml(tokenSymbol(view))}</p>`
      : `<p class="label">Amount</p><p class="amount">${escapeHtml(tokenAmount(view, view.amount))}</p>`;
  const parts = [amount, `<p class="muted">on ${network}</p>`, `<p id="status" class="${statusClass(phase)}">${escapeHtml(statusText(phase, view.kind, paidElsewhere))}</p>`];
  if (phase === 'payable') {
    parts.push(
      `<p class="label">Send ${escapeHtml(tokenSymbol(view))} on ${network} to</p>`,
      `<code id="address">${escapeHtml(view.address)}</code>`,
      `<button id="copy" type="button" data-address="${escapeHtml(view.address)}">Copy address</button>`,
    );
    if (view.kind === 'invoice' && view.received !== '0') {
      parts.push(`<p class="muted">Received so far: ${escapeHtml(tokenAmount(view, view.received))}</p>`);
    }
    if (view.kind === 'invoice' && view.expires_at !== null) parts.push(`<p class="muted">Expires ${escapeHtml(formatTime(view.expires_at))}</p>`);
  }
  return parts.join('');
}

function groupBody(view: CheckoutGroup, phase: CheckoutPhase, payUrl: string): string {
  const parts = [`<p id="status" class="${statusClass(phase)}">${escapeHtml(statusText(phase, view.kind, false))}</p>`];
  if (phase === 'payable' || phase === 'preparing') {
    parts.push(`<p class="label">${view.kind === 'invoice' ? `Pay ${escapeHtml(view.amount)} with one of` : 'Choose a network'}</p>`, '<ul>');
    for (const option of view.options) {
      const label = view.kind === 'invoice' ? tokenAmount(option, option.amount) : tokenSymbol(option);
      const href = paymentUrl(payUrl, option.public_id);
      parts.push(`<li><a href="${escapeHtml(href)}">${escapeHtml(label)} <span class="muted">on ${escapeHtml(option.network.name)}</span></a></li>`);
    }
    parts.push('</ul>');
  }
  return parts.join('');
}

function page(title: string, nonce: string, attributes: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body${attributes}><main>${content}</main><script nonce="${nonce}">${POLL_SCRIPT}</script></body></html>`;
}

export function renderCheckoutPage(found: FoundCheckout, options: PageOptions): string {
  const { view } = found;
  const paidElsewhere = found.type === 'single' && found.paidElsewhere;
  const phase = checkoutPhase(view, options.now, found.type === 'group' ? found.view.paid_public_id !== null : paidElsewhere);
  const content =
    header(view) + (found.type === 'group' ? groupBody(found.view, phase, options.payUrl) : singleBody(found.view, phase, paidElsewhere)) + footer(view);
  // A cancelled checkout never reopens; everything else may still change.
  const poll = phase === 'cancelled' ? 'no' : 'yes';
  const attributes =
    ` data-poll="${poll}" data-poll-url="${escapeHtml(options.pollPath + encodeURIComponent(view.public_id))}"` +
    ` data-state="${escapeHtml(pollState(view))}"`;
  return page(`Pay ${view.branding.name}`, options.nonce, attributes, content);
}

export function renderNotFoundPage(nonce: string): string {
  return page('Payment not found', nonce, ' data-poll="no"', '<h1>Payment not found</h1><p class="muted">Check the link you were given.</p>');
}
