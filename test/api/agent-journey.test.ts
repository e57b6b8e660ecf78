import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createTestApp, type TestApp } from '../support/app.js';
import { typedClient } from '../support/typed-client.js';
import { drainJob, deliveryJob, startReceiver, type Receiver } from './webhooks-helpers.js';

// The platform issue's "Done when": an agent goes from a fresh wallet to a working API key
// using only HTTP, over a real listener; then the lifecycle and webhooks issues' journey:
// invoice → address → payer pays in two parts (sandbox) → funded → settled, and the merchant's
// receiver gets every event, signed. Every call goes through the typed client generated from the
// OpenAPI document, and every answer is checked against that document (test/support/typed-client.ts).

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
const newKey = () => ({ 'Idempotency-Key': `journey-${(keyCounter += 1)}` });

describe('an agent with a fresh wallet, using only HTTP', () => {
  it('signs in, onboards, creates a shop and a key, takes a payment and receives its webhooks', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const anonymous = typedClient(base, null);

    const networks = await anonymous.GET('/networks');
    expect(networks.response.status).toBe(200);
    const evm = networks.data?.find((network) => (network.family ?? 'evm') === 'evm');
    expect(evm).toBeDefined();

    const challenge = await anonymous.POST('/auth/wallet/challenge', { body: { address: wallet.address, chain_id: 8453 } });
    expect(challenge.response.status).toBe(200);
    const signature = await wallet.signMessage({ message: challenge.data!.message });
    const session = await anonymous.POST('/auth/wallet/verify', { body: { challenge_id: challenge.data!.challenge_id, signature } });
    expect(session.response.status).toBe(200);
    expect(session.data!.user.onboarding_required).toBe(true);
    const agent = typedClient(base, session.data!.token);

    const onboarded = await agent.POST('/onboarding', { params: { header: newKey() }, body: { name: 'Agent Co', email: 'agent@example.com' } });
    expect(onboarded.response.status).toBe(201);
    const me = (await agent.GET('/me')).data!;
    expect('user' in me && me.user.onboarding_required).toBe(false);
    expect('csrf' in me && typeof me.csrf).toBe('string');

    const merchants = (await agent.GET('/merchants')).data!;
    expect(merchants).toHaveLength(1);
    const merchantId = merchants[0]!.id;

    const shop = await agent.POST('/merchants/{merchant_id}/shops', {
      params: { path: { merchant_id: merchantId }, header: newKey() },
      body: { name: 'Agent sandbox', sandbox: true },
    });
    expect(shop.response.status).toBe(201);
    const shopId = shop.data!.id;
    expect((await agent.GET('/shops/{shop_id}/terms', { params: { path: { shop_id: shopId } } })).response.status).toBe(200);

    const key = await agent.POST('/shops/{shop_id}/keys', {
      params: { path: { shop_id: shopId }, header: newKey() },
      body: { name: 'agent', scopes: ['read', 'write'], allowed_ips: ['127.0.0.1/32', '::1'] },
    });
    expect(key.response.status).toBe(201);
    const apiKey = key.data!.token;
    expect(apiKey.startsWith('ivk_')).toBe(true);
    const keyed = typedClient(base, apiKey);

    const keyMe = await keyed.GET('/me');
    expect(keyMe.response.status).toBe(200);
    expect(keyMe.data).not.toHaveProperty('csrf');

    const endpoint = await keyed.POST('/shops/{shop_id}/webhooks', {
      params: { path: { shop_id: shopId }, header: newKey() },
      body: { url: receiver.url, filters: ['transfer', 'invoice'] },
    });
    expect(endpoint.response.status).toBe(201);
    const secret = endpoint.data!.secret;

    const invoice = await keyed.POST('/shops/{shop_id}/invoices', {
      params: { path: { shop_id: shopId }, header: newKey() },
      body: { chain_id: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '100000000', external_id: 'order-1' },
    });
    expect(invoice.response.status).toBe(202);
    expect(invoice.data!.status).toBe('registering');
    const invoiceId = invoice.data!.id;
    const issuance = { params: { path: { shop_id: shopId, id: invoiceId } } };
    await app.jobs.drain();
    const opened = (await keyed.GET('/shops/{shop_id}/issuances/{id}', issuance)).data!;
    expect(opened.status).toBe('open');
    expect('address' in opened && opened.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const publicId = opened.payment_url.split('/').pop()!;
    const checkout = await anonymous.GET('/checkout/{public_id}', { params: { path: { public_id: publicId } } });
    expect(checkout.response.status).toBe(200);
    expect(checkout.data && 'address' in checkout.data && checkout.data.address).toBe('address' in opened && opened.address);

    for (const amount of ['40000000', '60000000']) {
      const paid = await keyed.POST('/shops/{shop_id}/sandbox/simulate', {
        params: { path: { shop_id: shopId }, header: newKey() },
        body: { issuance_id: invoiceId, kind: 'transfer.confirmed', amount },
      });
      expect(paid.response.status).toBe(200);
    }
    const funded = (await keyed.GET('/shops/{shop_id}/issuances/{id}', issuance)).data!;
    expect(funded.status).toBe('funded');
    expect('received' in funded && funded.received).toBe('100000000');

    const closed = await keyed.POST('/shops/{shop_id}/sandbox/simulate', {
      params: { path: { shop_id: shopId }, header: newKey() },
      body: { issuance_id: invoiceId, kind: 'invoice.closed', amount: '0' },
    });
    expect(closed.response.status).toBe(200);
    expect((await keyed.GET('/shops/{shop_id}/issuances/{id}', issuance)).data!.status).toBe('settled');

    // An error answer comes back typed, in the SPEC envelope.
    const refused = await anonymous.GET('/shops/{shop_id}/issuances/{id}', issuance);
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('unauthorized');

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
      expect(event.data.issuance_id).toBe(invoiceId);
    }
  });
});
