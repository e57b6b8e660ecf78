import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { admin, createAdminApp, errorOf } from './admin-helpers.js';
import { BASE } from './issuances-helpers.js';

// Issue 10 item 7: "an audit log of every operator action" — GET /admin/v1/audit?limit=&cursor=,
// newest first; who (the operator token is one principal: "operator", with the request's IP),
// what, target, details, time.

let app: TestApp;
beforeAll(async () => {
  app = await createAdminApp();
});
afterAll(async () => {
  await app.close();
});

const audit = (query = '') => admin(app, 'GET', `/audit${query}`);

describe('GET /admin/v1/audit', () => {
  it('records every operator change with actor, source, IP, action, target, details and time, newest first', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const target = owner.merchant.id;
    const from = { remoteAddress: '203.0.113.7' };
    await admin(app, 'POST', `/merchants/${target}/block`, { payload: { reason: 'fraud' }, ...from });
    app.clock.advance(1_000);
    await admin(app, 'POST', `/merchants/${target}/unblock`, from);
    await admin(app, 'PATCH', `/merchants/${target}/limits`, { payload: { team: 4 }, ...from });
    await admin(app, 'PATCH', `/merchants/${target}/fees`, { payload: { overrides: [{ chain_id: BASE, kind: 'deposit', terms: null }] }, ...from });
    // Reads and refused calls are not actions.
    await admin(app, 'GET', `/merchants/${target}`, from);
    await admin(app, 'POST', `/merchants/${target}/block`, { payload: { reason: '' }, ...from });

    const response = await audit();
    expect(response.statusCode).toBe(200);
    const entries = response.json().entries.filter((entry: { target: { id: string } }) => entry.target.id === target);
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual(['merchant.fees', 'merchant.limits', 'merchant.unblock', 'merchant.block']);
    const [fees, limits, unblock, block] = entries;
    expect(block).toEqual({
      id: expect.any(String),
      actor: 'operator',
      source: 'api',
      ip: '203.0.113.7',
      action: 'merchant.block',
      target: { type: 'merchant', id: target },
      details: { reason: 'fraud', already_blocked: false, closed_issuances: 0 },
      created_at: expect.any(String),
    });
    expect(Date.parse(unblock.created_at) - Date.parse(block.created_at)).toBe(1_000);
    expect(unblock.details).toEqual({ was_blocked: true, previous_reason: 'fraud' });
    expect(limits.details).toMatchObject({ change: { team: 4 }, limit_overrides: { team: 4 } });
    expect(fees.details).toEqual({ changes: [{ chain_id: BASE, kind: 'deposit', terms: null }] });
  });

  it('pages with limit and cursor until next_cursor is null', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (let team = 1; team <= 5; team += 1) await admin(app, 'PATCH', `/merchants/${owner.merchant.id}/limits`, { payload: { team } });
    const all = (await audit('?limit=200')).json();
    expect(all.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: { id: string }[]; next_cursor: string | null } = (await audit(`?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)).json();
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries.map((entry) => entry.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all.entries.map((entry: { id: string }) => entry.id));
    expect((await audit()).json().entries[0].details).toMatchObject({ change: { team: 5 } });
  });

  it('refuses a bad limit (invalid_request) or cursor (invalid_cursor)', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=-1', '?limit=1.5']) {
      const response = await audit(query);
      expect(response.statusCode, query).toBe(400);
      expect(errorOf(response)).toEqual({ code: 'invalid_request', message: 'invalid_request', details: { field: 'limit', reason: expect.any(String) } });
    }
    for (const cursor of ['garbage', Buffer.from('audit:0').toString('base64url'), Buffer.from('audit:-5').toString('base64url')]) {
      const response = await audit(`?cursor=${cursor}`);
      expect(response.statusCode).toBe(400);
      expect(errorOf(response)).toEqual({ code: 'invalid_cursor', message: 'invalid_cursor', details: { field: 'cursor', reason: expect.any(String) } });
    }
  });
});
