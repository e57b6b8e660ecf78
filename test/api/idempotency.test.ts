import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';

// SPEC "Authentication" 7 and the platform issue, item 5, checked on one business mutation
// (creating a shop key, a session-only idempotent route) and one key-authenticated one
// (creating an invoice).

let app: TestApp;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
beforeAll(async () => {
  app = await createTestApp();
  owner = await createOwnerWithShop(app.context.db);
});
afterAll(async () => app.close());

const invoiceBody = { chain_id: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '5000000' };

function createInvoice(key: string | undefined, body: object = invoiceBody, url = `/api/v1/shops/${owner.shop.id}/invoices`) {
  return app.request({ method: 'POST', url, headers: authed(owner.key.token, key), payload: body });
}

async function invoiceCount(): Promise<number> {
  const row = await app.context.db
    .selectFrom('issuances')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('shop_id', '=', owner.shop.id)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('SPEC "Authentication" 7: Idempotency-Key', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['over 128 bytes', 'k'.repeat(129)],
    ['over 128 bytes in UTF-8 though 64 characters', 'é'.repeat(65)],
  ])('a %s key answers 400 idempotency_key_required and stores nothing', async (_name, key) => {
    const before = await invoiceCount();
    const response = await createInvoice(key);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'idempotency_key_required', message: 'idempotency_key_required', details: { field: 'Idempotency-Key', reason: expect.any(String) } },
    });
    expect(await invoiceCount()).toBe(before);
  });

  it('accepts a key of exactly 128 bytes', async () => {
    expect((await createInvoice('k'.repeat(128))).statusCode).toBe(202);
  });

  it('a repeated completed request returns the stored status and body, and has one effect', async () => {
    const first = await createInvoice('repeat-1');
    const before = await invoiceCount();
    const again = await createInvoice('repeat-1');
    expect(again.statusCode).toBe(first.statusCode);
    expect(again.json()).toEqual(first.json());
    expect(await invoiceCount()).toBe(before);
  });

  it('the same key with a different body answers 409 idempotency_conflict and stores nothing', async () => {
    await createInvoice('conflict-1');
    const before = await invoiceCount();
    const response = await createInvoice('conflict-1', { ...invoiceBody, amount: '6000000' });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('idempotency_conflict');
    expect(await invoiceCount()).toBe(before);
  });

  it('key order and whitespace in the body do not make a different request', async () => {
    const first = await createInvoice('order-1', { amount: '7000000', token: invoiceBody.token, chain_id: 8453 });
    const again = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/invoices`,
      headers: { ...authed(owner.key.token, 'order-1'), 'content-type': 'application/json' },
      payload: `{ "chain_id": 8453,\n "token": "${invoiceBody.token}", "amount": "7000000" }`,
    });
    expect(again.statusCode).toBe(202);
    expect(again.json().id).toBe(first.json().id);
  });

  it('concurrent identical requests produce exactly one effect; every answer is the stored one or a conflict', async () => {
    const before = await invoiceCount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => createInvoice('concurrent-1')));
    expect(await invoiceCount()).toBe(before + 1);
    const ids = new Set(answers.filter((answer) => answer.statusCode === 202).map((answer) => answer.json().id));
    expect(ids.size).toBe(1);
    for (const answer of answers) expect([202, 409]).toContain(answer.statusCode);
  });

  it('errors are not stored: a failed request can be corrected and retried with the same key', async () => {
    const refused = await createInvoice('fix-1', { ...invoiceBody, amount: '1.5' });
    expect(refused.statusCode).toBe(400);
    const corrected = await createInvoice('fix-1');
    expect(corrected.statusCode).toBe(202);
  });

  it('legacy /projects routes share the idempotency scope of /shops (SPEC "Versioning")', async () => {
    const viaProjects = await createInvoice('alias-1', invoiceBody, `/api/v1/projects/${owner.shop.id}/invoices`);
    expect(viaProjects.statusCode).toBe(202);
    const viaShops = await createInvoice('alias-1');
    expect(viaShops.json()).toEqual(viaProjects.json());
  });

  it('keys are scoped per principal: another principal may use the same key string', async () => {
    const other = await createOwnerWithShop(app.context.db);
    const mine = await createInvoice('shared-string');
    const theirs = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${other.shop.id}/invoices`,
      headers: authed(other.key.token, 'shared-string'),
      payload: invoiceBody,
    });
    expect(theirs.statusCode).toBe(202);
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('GET requests ignore the header', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(owner.key.token, '') });
    expect(response.statusCode).toBe(200);
  });
});
