import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../platform/crypto.js';

/**
 * Webhook signing (SPEC "Events", delivery rules 1 and 2).
 *
 * Every delivery carries two signature schemes over the same bytes:
 * - the branded header `t=<unix seconds>,v1=<hex>` — HMAC-SHA256 over
 *   `<t>.<raw body>`, keyed with the whole secret string including `whsec_`,
 *   which is what Stripe-style verifiers compute;
 * - the Standard Webhooks headers `webhook-id`, `webhook-timestamp`,
 *   `webhook-signature` — HMAC-SHA256 over `<id>.<t>.<raw body>`, keyed with
 *   the base64-decoded bytes after `whsec_`.
 *
 * The timestamp is inside the signed text so that a captured request cannot be
 * replayed later than the receiver's tolerance. During secret rotation both the
 * old and the new secret sign, so a receiver holding either one verifies.
 */

const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The branded signature header value for one delivery; one `v1` per secret. */
export function brandedSignatureHeader(secrets: readonly string[], timestampSeconds: number, rawBody: Buffer | string): string {
  requireSecrets(secrets);
  requireTimestamp(timestampSeconds);
  const signatures = secrets.map((secret) => `v1=${brandedDigest(secret, timestampSeconds, rawBody)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The Standard Webhooks headers for one delivery; signatures space-separated, one per secret. */
export function standardWebhookHeaders(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  rawBody: Buffer | string,
): StandardWebhookHeaders {
  requireSecrets(secrets);
  requireTimestamp(timestampSeconds);
  // The id is part of the signed text; a `.` or space in it would make the
  // header ambiguous for receivers that split on them.
  if (!/^[A-Za-z0-9_-]+$/.test(messageId)) throw new Error('standardWebhookHeaders: message id must be [A-Za-z0-9_-]+');
  const signatures = secrets.map((secret) => {
    const hmac = createHmac('sha256', standardKey(secret));
    hmac.update(`${messageId}.${timestampSeconds}.`);
    hmac.update(rawBody);
    return `v1,${hmac.digest('base64')}`;
  });
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * The reference verifier for the branded header (README guide, tests): true
 * when any `v1` matches and `t` is within `toleranceSeconds` of `nowSeconds`
 * in either direction. Compares in constant time; never throws.
 */
export function verifyBrandedSignature(
  header: string,
  secret: string,
  rawBody: Buffer | string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1') candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = brandedDigest(secret, timestamp, rawBody);
  // Check every candidate rather than stopping at the first match, so the time
  // taken does not depend on which position matched.
  let matched = false;
  for (const candidate of candidates) {
    if (constantTimeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

function brandedDigest(secret: string, timestampSeconds: number, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', secret);
  // Updating twice signs the body's own bytes; concatenating a Buffer into a
  // string would re-encode it and break verification over the original bytes.
  hmac.update(`${timestampSeconds}.`);
  hmac.update(rawBody);
  return hmac.digest('hex');
}

function standardKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('webhook secret must start with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('webhook secret has an empty key');
  return key;
}

function requireSecrets(secrets: readonly string[]): void {
  if (secrets.length === 0) throw new Error('webhook signing needs at least one secret');
}

function requireTimestamp(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('webhook timestamp must be whole unix seconds');
  }
}
