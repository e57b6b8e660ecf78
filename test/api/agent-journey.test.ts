import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createTestApp, type TestApp } from '../support/app.js';
import { drainJob, deliveryJob, startReceiver, type Receiver } from './webhooks-helpers.js';

// The platform issue's "Done when": an agent goes from a fresh wallet to a working API key
// using only HTTP, over a real listener; then the lifecycle and webhooks issues' journey:
// invoice → address → payer pays in two parts (sandbox) → funded → settled, and the merchant's
// receiver gets every event, signed.

let app: TestApp;
let base: string;
let receiver: Receiver;

beforeAll(async () => {
  app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/v1`;
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await app.close();
});

let keyCounter = 0;
async function call(method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (method !== 'GET') headers['idempotency-key'] = `journey-${(keyCounter += 1)}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- untyped JSON answers, as a black-box client sees them
}

describe('an agent with a fresh wallet, using only HTTP', () => {
  it('signs in, onboards, creates a shop and a key, takes a payment and receives its webhooks', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());

    const networks = await call('GET', '/networks', null);
    expect(networks.status).toBe(200);
    const evm = (networks.body as unknown as { chain_id: number; family?: string }[]).find((network) => (network.family ?? 'evm') === 'evm');
    expect(evm).toBeDefined();

    const challenge = await call('POST', '/auth/wallet/challenge', null, { address: wallet.address, chain_id: 8453 });
    expect(challenge.status).toBe(200);
    const signature = await wallet.signMessage({ message: challenge.body.message });
    const session = await call('POST', '/auth/wallet/verify', null, { challenge_id: challenge.body.challenge_id, signature });
    expect(session.status).toBe(200);
    expect(session.body.user.onboarding_required).toBe(true);
    const sessionToken: string = session.body.token;

    expect((await call('POST', '/onboarding', sessionToken, { name: 'Agent Co', email: 'agent@example.com' })).status).toBe(201);
    const me = await call('GET', '/me', sessionToken);
    expect(me.body.user.onboarding_required).toBe(false);
    expect(typeof me.body.csrf).toBe('string');

    const merchants = await call('GET', '/merchants', sessionToken);
    expect(merchants.body).toHaveLength(1);
    const merchantId: string = (merchants.body as unknown as { id: string }[])[0]!.id;

    const shop = await call('POST', `/merchants/${merchantId}/shops`, sessionToken, { name: 'Agent sandbox', sandbox: true });
    expect(shop.status).toBe(201);
    const shopId: string = shop.body.id;
    expect((await call('GET', `/shops/${shopId}/terms`, sessionToken)).status).toBe(200);

    const key = await call('POST', `/shops/${shopId}/keys`, sessionToken, { name: 'agent', scopes: ['read', 'write'], allowed_ips: ['127.0.0.1/32', '::1'] });
    expect(key.status).toBe(201);
    const apiKey: string = key.body.token;
    expect(apiKey.startsWith('ivk_')).toBe(true);

    const keyMe = await call('GET', '/me', apiKey);
    expect(keyMe.status).toBe(200);
    expect(keyMe.body.csrf).toBeUndefined();

    const endpoint = await call('POST', `/shops/${shopId}/webhooks`, apiKey, { url: receiver.url, filters: ['transfer', 'invoice'] });
    expect(endpoint.status).toBe(201);
    const secret: string = endpoint.body.secret;

    const invoice = await call('POST', `/shops/${shopId}/invoices`, apiKey, {
      chain_id: 8453,
      token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '100000000',
      external_id: 'order-1',
    });
    expect(invoice.status).toBe(202);
    expect(invoice.body.status).toBe('registering');
    await app.jobs.drain();
    const opened = await call('GET', `/shops/${shopId}/issuances/${invoice.body.id}`, apiKey);
    expect(opened.body.status).toBe('open');
    expect(opened.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const publicId = String(opened.body.payment_url).split('/').pop();
    const checkout = await call('GET', `/checkout/${publicId}`, null);
    expect(checkout.status).toBe(200);
    expect(checkout.body.address).toBe(opened.body.address);

    for (const amount of ['40000000', '60000000']) {
      const paid = await call('POST', `/shops/${shopId}/sandbox/simulate`, apiKey, { issuance_id: invoice.body.id, kind: 'transfer.confirmed', amount });
      expect(paid.status).toBeLessThan(300);
    }
    const funded = await call('GET', `/shops/${shopId}/issuances/${invoice.body.id}`, apiKey);
    expect(funded.body.status).toBe('funded');
    expect(funded.body.received).toBe('100000000');

    const closed = await call('POST', `/shops/${shopId}/sandbox/simulate`, apiKey, { issuance_id: invoice.body.id, kind: 'invoice.closed', amount: '0' });
    expect(closed.status).toBeLessThan(300);
    expect((await call('GET', `/shops/${shopId}/issuances/${invoice.body.id}`, apiKey)).body.status).toBe('settled');

    await drainJob(deliveryJob(app));
    const types = receiver.received.map((request) => JSON.parse(request.body.toString()).type);
    expect(types.sort()).toEqual(['invoice.closed', 'transfer.confirmed', 'transfer.confirmed']);
    const stripe = new Stripe('sk_test_unused');
    for (const request of receiver.received) {
      const event = stripe.webhooks.constructEvent(request.body, String(request.headers['ivory-signature']), secret) as unknown as {
        id: string;
        data: { external_id: string; issuance_id: string };
      };
      expect(request.headers['ivory-event-id']).toBe(event.id);
      expect(event.data.external_id).toBe('order-1');
      expect(event.data.issuance_id).toBe(invoice.body.id);
    }
  });
});
