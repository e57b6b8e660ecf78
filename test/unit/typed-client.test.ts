import { describe, expect, it } from 'vitest';
import { conformsToDocument } from '../support/typed-client.js';

// The agent journey relies on this check to keep the committed OpenAPI document true to the
// server's answers; these cases show that it refuses what the document does not describe.

async function check(method: string, schemaPath: string, status: number, body: unknown): Promise<void> {
  const request = new Request(`http://ivory.test/api/v1${schemaPath}`, { method });
  const response = new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  await conformsToDocument.onResponse?.({ request, response, schemaPath, params: {}, id: 'test', options: {} as never });
}

const issuance = {
  id: '00000000-0000-4000-8000-000000000001',
  kind: 'invoice',
  status: 'open',
  amount: '25000000',
  received: '0',
  token_decimals: 6,
  chain_id: 8453,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  family: 'evm',
  expires_at: '2026-12-01T00:00:00.000Z',
  cancelled_at: null,
  disabled_at: null,
  payout_tx_hash: null,
  address: '0x0000000000000000000000000000000000000001',
  payment_url: 'http://ivory.test/pay/abc',
  external_id: null,
  public_id: 'abc',
  shop_id: '00000000-0000-4000-8000-000000000002',
  group_id: null,
  created_at: '2026-11-24T00:00:00.000Z',
};

describe('the typed test client checks answers against the OpenAPI document', () => {
  it('accepts an answer that matches the documented schema', async () => {
    await expect(check('GET', '/shops/{shop_id}/issuances/{id}', 200, issuance)).resolves.toBeUndefined();
    await expect(check('GET', '/shops/{shop_id}/issuances/{id}', 401, { error: { code: 'unauthorized', message: 'unauthorized' } })).resolves.toBeUndefined();
  });

  it('refuses a body that does not match: a missing field, a wrong type, an unknown error code', async () => {
    const { received: _received, ...withoutReceived } = issuance;
    await expect(check('GET', '/shops/{shop_id}/issuances/{id}', 200, withoutReceived)).rejects.toThrow(/does not match/);
    await expect(check('GET', '/shops/{shop_id}/issuances/{id}', 200, { ...issuance, chain_id: '8453' })).rejects.toThrow(/does not match/);
    await expect(check('GET', '/shops/{shop_id}/issuances/{id}', 401, { error: { code: 'no_such_code', message: 'x' } })).rejects.toThrow(/does not match/);
  });

  it('knows the issuance list: a page of issuances and groups, and its documented refusals', async () => {
    const group = {
      id: '00000000-0000-4000-8000-000000000003',
      group: true,
      kind: 'invoice',
      shop_id: issuance.shop_id,
      public_id: 'grp',
      status: 'open',
      amount: '10',
      payment_url: 'http://ivory.test/pay/grp',
      expires_at: '2026-12-01T00:00:00.000Z',
      cancelled_at: null,
      disabled_at: null,
      paid_issuance_id: null,
      external_id: 'cart-1',
      created_at: '2026-11-24T00:00:00.000Z',
      options: [{ id: issuance.id, public_id: 'abc', chain_id: 8453, token: issuance.token, token_decimals: 6, family: 'evm', amount: '10000000', address: null, status: 'open' }],
    };
    const path = '/shops/{shop_id}/issuances';
    await expect(check('GET', path, 200, { data: [group, issuance], next_cursor: 'WyIyMDI2Il0' })).resolves.toBeUndefined();
    await expect(check('GET', path, 200, { data: [], next_cursor: null })).resolves.toBeUndefined();
    const refusal = { error: { code: 'invalid_request', message: 'invalid_request', details: { field: 'status', reason: 'must be one of: open' } } };
    await expect(check('GET', path, 400, refusal)).resolves.toBeUndefined();
    await expect(check('GET', path, 400, { error: { code: 'invalid_cursor', message: 'invalid_cursor' } })).resolves.toBeUndefined();
    // A page without next_cursor, or an item that is neither shape, is not what the document says.
    await expect(check('GET', path, 200, { data: [issuance] })).rejects.toThrow(/does not match/);
    await expect(check('GET', path, 200, { data: [{ ...group, options: 'none' }], next_cursor: null })).rejects.toThrow(/does not match/);
  });

  it('refuses a status or an operation the document does not list', async () => {
    await expect(check('GET', '/networks', 418, [])).rejects.toThrow(/status not in the document/);
    await expect(check('GET', '/not-a-route', 200, {})).rejects.toThrow(/operation not in the document/);
  });
});
