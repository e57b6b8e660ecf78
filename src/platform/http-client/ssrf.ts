import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';

/**
 * Keeping webhook deliveries away from Ivory's own network (SPEC "Webhook
 * endpoint and delivery": local and private addresses rejected).
 *
 * Two checks share one address rule (`isForbiddenAddress`):
 * - at registration, `checkWebhookUrl` refuses URLs whose host is a forbidden
 *   IP literal or an obviously local name;
 * - at connect time, the guarded dispatcher resolves the name itself, refuses
 *   if any resolved address is forbidden, and connects to the address it
 *   checked. A name that resolved to a public address at registration and to
 *   127.0.0.1 later (DNS rebinding) is therefore caught where it matters.
 *
 * `allowPrivate` (configuration `webhookAllowPrivate`, development only)
 * admits loopback and private ranges, plain `http:` and single-label names.
 * Link-local (cloud metadata at 169.254.169.254), unspecified, multicast and
 * reserved addresses stay refused even then.
 */

const DEVELOPMENT_RANGES: ReadonlySet<string> = new Set(['loopback', 'private', 'uniqueLocal']);

// Names that resolve, by convention or by RFC, only inside a host or a site.
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

export interface AddressPolicy {
  allowPrivate?: boolean;
}

/**
 * True when Ivory must not connect to `ip` (an IPv4 dotted quad or an IPv6
 * address, brackets optional). Anything that does not parse is forbidden.
 */
export function isForbiddenAddress(ip: string, { allowPrivate = false }: AddressPolicy = {}): boolean {
  const range = rangeOf(ip);
  return range !== 'unicast' && !(allowPrivate && DEVELOPMENT_RANGES.has(range));
}

/**
 * The ipaddr.js range name of an address, looking through IPv6 forms that
 * carry an IPv4 address (mapped, translated, NAT64) to the address inside.
 * `unicast` is the only public answer.
 */
function rangeOf(ip: string): string {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Four-part decimal only: other IPv4 spellings (0x7f.1, 2130706433) are the
  // URL parser's business; a resolver never returns them.
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).range();
  if (!ipaddr.IPv6.isValid(text)) return 'invalid';
  const address = ipaddr.IPv6.parse(text);
  if (address.zoneId !== undefined) return 'scoped';
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return embeddedIPv4(address).range();
    case 'rfc6052':
      // The well-known NAT64 prefix reaches the IPv4 address inside; the
      // local-use prefix (64:ff9b:1::/48) goes wherever the operator routes it.
      return address.match(NAT64_WELL_KNOWN) ? embeddedIPv4(address).range() : range;
    case 'unicast':
      // ipaddr.js calls everything it has no name for unicast, including the
      // deprecated IPv4-compatible ::/96 (`::127.0.0.1`). Only 2000::/3 is
      // globally routed.
      return address.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'reserved';
    default:
      return range;
  }
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const high = address.parts[6] ?? 0;
  const low = address.parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Registration-time check of an endpoint URL. Returns the normalised URL
 * (fragment removed) or the reason for refusal; never throws. Names are not
 * resolved here: what a name resolves to is checked on every connection.
 */
export function checkWebhookUrl(input: string, { allowPrivate }: { allowPrivate: boolean }): WebhookUrlCheck {
  let url: URL;
  try {
    // The WHATWG parser normalises every IPv4 spelling (2130706433, 0177.0.0.1,
    // 0x7f.1, 127.1) to a dotted quad and IPv6 to its compressed form, so
    // the checks below see one spelling per address.
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  const allowedSchemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowedSchemes.includes(url.protocol)) {
    return { ok: false, reason: `scheme ${url.protocol} not allowed; use ${allowedSchemes.join(' or ')}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  url.hash = '';

  const host = url.hostname;
  if (host.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host)) {
    if (isForbiddenAddress(host, { allowPrivate })) {
      return { ok: false, reason: `address ${host} is not public (${rangeOf(host)})` };
    }
    return { ok: true, url };
  }
  if (!allowPrivate) {
    const reason = localNameReason(host);
    if (reason !== undefined) return { ok: false, reason };
  }
  return { ok: true, url };
}

function localNameReason(host: string): string | undefined {
  const name = host.replace(/\.+$/, '');
  if (name === '') return 'empty host name';
  if (name === 'localhost' || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    return `host ${host} is a local name`;
  }
  if (!name.includes('.')) return `host ${host} is a single-label name`;
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses; rejects when it cannot. */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Raised at connect time when a host resolves to a forbidden address. */
export class ForbiddenAddressError extends Error {
  readonly code = 'ESSRF';
  constructor(hostname: string, address: string) {
    super(`ESSRF: ${hostname} resolves to forbidden address ${address}`);
    this.name = 'ForbiddenAddressError';
  }
}

export interface GuardedDispatcherOptions {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Replaces the system resolver; tests make `rebind.test` resolve to 127.0.0.1. */
  lookup?: HostLookup;
}

/**
 * An undici Agent for webhook deliveries whose every new connection resolves
 * the host once, refuses (`ESSRF`) if any address is forbidden, and connects
 * to the checked addresses in resolver order. TLS still verifies the
 * certificate against the host name. Keep-alive connections are reused per
 * origin, which is safe: a socket is only ever opened to a checked address.
 *
 * Limit: addresses are tried one after another, each with the connect
 * timeout, rather than raced (no happy eyeballs).
 */
export function createGuardedDispatcher({ allowPrivate, connectTimeoutMs, lookup = systemLookup }: GuardedDispatcherOptions): Agent {
  const connectDirect = buildConnector({ timeout: connectTimeoutMs });

  const connectGuarded: buildConnector.connector = (options, callback) => {
    resolveChecked(options.hostname, lookup, allowPrivate).then(
      (addresses) => {
        // SNI and certificate checks use the name, never the address we dial.
        const servername = isIP(options.hostname) === 0 ? (options.servername ?? options.hostname) : options.servername;
        const attempt = (index: number): void => {
          const address = addresses[index] ?? '';
          try {
            connectDirect({ ...options, hostname: address, servername }, (error, socket) => {
              if (error !== null && index + 1 < addresses.length) attempt(index + 1);
              else if (error !== null) callback(error, null);
              else callback(null, socket as Socket);
            });
          } catch (error) {
            // We run inside a promise callback: a synchronous throw would
            // become an unhandled rejection instead of a failed delivery.
            callback(error instanceof Error ? error : new Error(String(error)), null);
          }
        };
        attempt(0);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };

  return new Agent({ connect: connectGuarded });
}

async function resolveChecked(hostname: string, lookup: HostLookup, allowPrivate: boolean): Promise<string[]> {
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = isIP(literal) !== 0 ? [literal] : (await lookup(literal)).map((resolved) => resolved.address);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`ENOTFOUND: ${hostname} has no addresses`), { code: 'ENOTFOUND' });
  }
  // All or nothing: a name with one public and one private address is refused,
  // since the order a resolver returns them in is not ours to rely on.
  const forbidden = addresses.find((address) => isForbiddenAddress(address, { allowPrivate }));
  if (forbidden !== undefined) throw new ForbiddenAddressError(hostname, forbidden);
  return addresses;
}

export interface PostWebhookOptions {
  headers: Record<string, string>;
  body: string | Buffer;
  /** The whole exchange: connect, headers and the excerpt of the body. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** The caller's clock, for a Retry-After given as a date; the system clock if absent. */
  now?: () => Date;
}

/**
 * `ok: true` means the receiver answered with some HTTP status, 2xx or not;
 * `ok: false` means no answer (refused address, connection error, timeout).
 */
export type PostWebhookResult =
  | { ok: true; status: number; latencyMs: number; responseExcerpt: string; retryAfterSeconds?: number }
  | { ok: false; error: string; latencyMs: number };

/**
 * POSTs one delivery. Never throws. Redirects are not followed (undici 7 only
 * follows them through an interceptor we do not install): a 3xx is reported as
 * a status like any other non-2xx. At most `maxResponseBytes` of the response
 * body are read; the rest is discarded with the connection. If the body stalls
 * or the time runs out after the status arrived, the status stands with the
 * excerpt read so far.
 */
export async function postWebhook(
  dispatcher: Dispatcher,
  url: string | URL,
  { headers, body, timeoutMs = 10_000, maxResponseBytes = 4096, now = () => new Date() }: PostWebhookOptions,
): Promise<PostWebhookResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await request(url, {
      dispatcher,
      method: 'POST',
      headers,
      body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const responseExcerpt = await readExcerpt(response.body, maxResponseBytes);
    const retryAfterSeconds = parseRetryAfter(firstHeader(response.headers['retry-after']), now().getTime());
    return {
      ok: true,
      status: response.statusCode,
      latencyMs: elapsed(),
      responseExcerpt,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
  } catch (error) {
    const description = controller.signal.aborted ? `timeout after ${timeoutMs} ms` : describeError(error);
    return { ok: false, error: description, latencyMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

async function readExcerpt(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      const room = maxBytes - length;
      if (bytes.length > room) {
        chunks.push(bytes.subarray(0, room));
        length += room;
        break;
      }
      chunks.push(bytes);
      length += bytes.length;
    }
  } catch {
    // A body that fails after the status arrived leaves the status valid.
  } finally {
    // Leaving the loop early already destroys the stream; this also covers a
    // body that failed. The unread rest is dropped with its connection.
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Retry-After (RFC 9110 §10.2.3) as whole seconds from `nowMs`: either
 * delay-seconds or an HTTP date. A date in the past gives 0; anything
 * unparseable gives undefined.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // Every HTTP date form starts with a day name; without this check the
  // lenient Date.parse would read "-5" or "1.5" as dates.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && !error.message.startsWith(code)) return `${code}: ${error.message}`;
  return error.message;
}
