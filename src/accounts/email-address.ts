import { createRequire } from 'node:module';

export interface EmailAddress {
  /** As given, with the domain lower-cased: what the user sees as the identity label. */
  readonly address: string;
  /** Fully lower-cased: the identity subject, so that case never makes two accounts. */
  readonly subject: string;
  readonly domain: string;
}

const MAX_LENGTH = 254;

/** What `invalid_email` says of an address `parseEmailAddress` refuses. */
export const EMAIL_RULE = 'must be an e-mail address such as name@example.com';
/** What `disposable_email` says. */
export const DISPOSABLE = 'is at a disposable-mail domain: use a lasting address';
const MAX_LOCAL_LENGTH = 64;
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`);
const DOMAIN_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const TOP_LEVEL = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

/**
 * A mail address in the common subset of RFC 5322: a dot-atom local part and
 * a DNS host name with at least two labels. Quoted local parts, comments and
 * address literals are refused: no mail provider hands those out.
 */
export function parseEmailAddress(raw: string): EmailAddress | undefined {
  const text = raw.trim();
  if (text.length > MAX_LENGTH) return undefined;
  const at = text.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1).toLowerCase();
  if (local.length > MAX_LOCAL_LENGTH || !LOCAL_PART.test(local)) return undefined;
  const labels = domain.split('.');
  const topLevel = labels[labels.length - 1];
  if (labels.length < 2 || topLevel === undefined || !TOP_LEVEL.test(topLevel)) return undefined;
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return undefined;
  const address = `${local}@${domain}`;
  return { address, subject: address.toLowerCase(), domain };
}

let disposableDomains: ReadonlySet<string> | undefined;

/** True when the domain or any parent domain is a known throw-away mail provider. */
export function isDisposableDomain(domain: string): boolean {
  disposableDomains ??= loadDisposableDomains();
  const labels = domain.toLowerCase().split('.');
  for (let start = 0; start < labels.length - 1; start += 1) {
    if (disposableDomains.has(labels.slice(start).join('.'))) return true;
  }
  return false;
}

function loadDisposableDomains(): ReadonlySet<string> {
  // The package is a bare JSON array (its `main`); require reads it without import attributes.
  const list = createRequire(import.meta.url)('disposable-email-domains') as unknown;
  if (!Array.isArray(list)) throw new Error('disposable-email-domains: expected an array of domains');
  return new Set(list.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.toLowerCase()));
}
