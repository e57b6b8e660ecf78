import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  brandedSignatureHeader,
  newWebhookSecret,
  standardWebhookHeaders,
  verifyBrandedSignature,
} from '../../src/webhook-delivery/signature.js';

// SPEC "Events", delivery rules 1–2: `t=<unix_seconds>,v1=<64 hex>`, HMAC-SHA256
// over `<timestamp>.<raw_body>`, verified over the original bytes, and a
// reference verifier that rejects timestamps more than 300 s from its clock.

function envelope(): Buffer {
  // Stripe's constructEvent parses the body as JSON, so the fixture is JSON; the
  // non-ASCII text checks that the raw bytes, not a re-encoding, are signed.
  const event = {
    id: '0b6f4f3e-6a55-4e0e-9a0b-6f2f4c1d2e3f',
    type: 'transfer.confirmed',
    created_at: '2026-09-23T10:00:00Z',
    data: { issuance_id: '5a1c7f52-1d0e-4a8e-8f7e-2b9c3d4e5f60', external_id: 'order-ünïcode-€' },
  };
  return Buffer.from(JSON.stringify(event), 'utf8');
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function flipLastByte(body: Buffer): Buffer {
  const changed = Buffer.from(body);
  const last = changed.length - 1;
  changed[last] = (changed[last] ?? 0) ^ 0x01;
  return changed;
}

describe('newWebhookSecret', () => {
  it('is whsec_ followed by base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });
});

describe('branded signature header (SPEC delivery rule 1–2)', () => {
  it('has the form t=<unix seconds>,v1=<64 hex chars>', () => {
    const header = brandedSignatureHeader([newWebhookSecret()], 1_790_000_000, envelope());
    expect(header).toMatch(/^t=1790000000,v1=[0-9a-f]{64}$/);
  });

  it('verifies with the stripe package and with our reference verifier', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const timestamp = nowSeconds();
    const header = brandedSignatureHeader([secret], timestamp, body);

    const event = Stripe.webhooks.constructEvent(body, header, secret);
    expect((event as unknown as { type: string }).type).toBe('transfer.confirmed');
    expect(verifyBrandedSignature(header, secret, body, timestamp)).toBe(true);
    expect(verifyBrandedSignature(header, secret, body.toString('utf8'), timestamp)).toBe(true);
  });

  it('signs with every secret during rotation, and either secret verifies', () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const body = envelope();
    const timestamp = nowSeconds();
    const header = brandedSignatureHeader([oldSecret, newSecret], timestamp, body);

    expect(header.match(/v1=[0-9a-f]{64}/g)).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(() => Stripe.webhooks.constructEvent(body, header, secret)).not.toThrow();
      expect(verifyBrandedSignature(header, secret, body, timestamp)).toBe(true);
    }
    expect(verifyBrandedSignature(header, newWebhookSecret(), body, timestamp)).toBe(false);
  });

  it('fails for a body changed by one byte (rule 2: verify over the original bytes)', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const timestamp = nowSeconds();
    const header = brandedSignatureHeader([secret], timestamp, body);
    const tampered = flipLastByte(body);

    expect(() => Stripe.webhooks.constructEvent(tampered, header, secret)).toThrow();
    expect(verifyBrandedSignature(header, secret, tampered, timestamp)).toBe(false);
  });

  it('rejects a timestamp more than 300 s from the local clock, in either direction', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const now = 1_790_000_000;
    const sign = (timestamp: number): string => brandedSignatureHeader([secret], timestamp, body);

    expect(verifyBrandedSignature(sign(now - 300), secret, body, now)).toBe(true);
    expect(verifyBrandedSignature(sign(now - 301), secret, body, now)).toBe(false);
    expect(verifyBrandedSignature(sign(now + 301), secret, body, now)).toBe(false);
    expect(verifyBrandedSignature(sign(now - 3600), secret, body, now, 7200)).toBe(true);
  });

  it('rejects malformed headers without throwing', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const now = nowSeconds();
    const valid = brandedSignatureHeader([secret], now, body);
    for (const header of ['', 't=', `t=${now}`, valid.replace(/^t=\d+/, 't=abc'), valid.replace('v1=', 'v0='), 'garbage']) {
      expect(verifyBrandedSignature(header, secret, body, now)).toBe(false);
    }
  });

  it('keys the HMAC with the whole secret string, whsec_ included', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const timestamp = nowSeconds();
    const withoutPrefix = secret.slice('whsec_'.length);
    const header = brandedSignatureHeader([withoutPrefix], timestamp, body);
    expect(verifyBrandedSignature(header, secret, body, timestamp)).toBe(false);
  });
});

describe('Standard Webhooks headers', () => {
  const messageId = '0b6f4f3e-6a55-4e0e-9a0b-6f2f4c1d2e3f';

  it('verify with the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const headers = standardWebhookHeaders([secret], messageId, nowSeconds(), body);

    expect(headers['webhook-id']).toBe(messageId);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toMatchObject({ type: 'transfer.confirmed' });
  });

  it('carry one space-separated signature per secret, and either secret verifies', () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const body = envelope();
    const headers = standardWebhookHeaders([oldSecret, newSecret], messageId, nowSeconds(), body);

    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  it('fail for a body changed by one byte', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const headers = standardWebhookHeaders([secret], messageId, nowSeconds(), body);
    expect(() => new Webhook(secret).verify(flipLastByte(body), { ...headers })).toThrow();
  });

  it('match the signature the standardwebhooks package computes itself', () => {
    const secret = newWebhookSecret();
    const body = envelope();
    const timestamp = 1_790_000_000;
    const headers = standardWebhookHeaders([secret], messageId, timestamp, body);
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(messageId, new Date(timestamp * 1000), body));
  });
});
