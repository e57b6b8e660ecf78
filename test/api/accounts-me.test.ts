import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { onboard, signInWithWallet } from '../support/wallet.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function me(token: string) {
  return app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) });
}

describe('SPEC "Account" GET /me', () => {
  it('answers a session with {user{user_id, onboarding_required, mfa_required, mfa_at}, csrf}', async () => {
    const { token, userId } = await signInWithWallet(app);
    const response = await me(token);
    expect(response.statusCode).toBe(200);
    const session = await app.context.db.selectFrom('sessions').select('csrf_token').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(response.json()).toEqual({
      user: { user_id: userId, onboarding_required: true, mfa_required: false, mfa_at: null },
      csrf: session.csrf_token,
    });
  });

  it('shows onboarding_required false once onboarding is complete', async () => {
    const { token } = await signInWithWallet(app);
    expect((await onboard(app, token)).statusCode).toBe(201);
    expect(response(await me(token)).user.onboarding_required).toBe(false);
  });

  it('answers an API key with the principal object itself and no csrf', async () => {
    const { shop, merchant, key } = await createOwnerWithShop(app.context.db);
    const response = await me(key.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      type: 'api_key',
      key_id: key.id,
      shop_id: shop.id,
      merchant_id: merchant.id,
      scopes: ['read', 'write'],
    });
  });

  it('accepts a key of any scope (S+K), showing its exact scopes', async () => {
    const { shop, merchant } = await createOwnerWithShop(app.context.db);
    const writeOnly = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id }, { scopes: ['write'] });
    const response = await me(writeOnly.token);
    expect(response.statusCode).toBe(200);
    expect(response.json().scopes).toEqual(['write']);
  });

  it('answers 401 unauthorized without a credential', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/me' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
  });
});

function response(answer: { json: () => unknown }) {
  return answer.json() as { user: { onboarding_required: boolean } };
}
