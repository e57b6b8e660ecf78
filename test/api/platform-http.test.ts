import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createSession, createUser } from '../support/factories.js';
import { openEmbedded } from '../../src/platform/database/database.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { RedisRateLimiter } from '../../src/platform/http/rate-limit.js';

async function usersCount(app: TestApp): Promise<number> {
  const row = await app.context.db.selectFrom('merchants').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('request bodies (SPEC "Errors": json_content_type_required / invalid_json)', () => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await createTestApp();
    const user = await createUser(app.context.db);
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', user.id).execute();
    token = (await createSession(app.context.db, user.id)).token;
  });
  afterAll(async () => app.close());

  const post = (headers: Record<string, string>, payload?: string) =>
    app.request({ method: 'POST', url: '/api/v1/onboarding', headers: { ...authed(token, newIdempotencyKey()), ...headers }, payload });

  it('refuses a non-JSON content type with json_content_type_required and stores nothing', async () => {
    const response = await post({ 'content-type': 'text/plain' }, '{"name":"Acme"}');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'json_content_type_required', message: 'json_content_type_required', details: { field: 'Content-Type', reason: 'must be application/json' } },
    });
    expect(await usersCount(app)).toBe(0);
  });

  it('refuses a missing body with json_content_type_required', async () => {
    const response = await post({});
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('json_content_type_required');
  });

  it('refuses malformed JSON with invalid_json', async () => {
    const response = await post({ 'content-type': 'application/json' }, '{"name": ');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_json');
  });

  it('refuses a JSON value that is not an object with invalid_json', async () => {
    const response = await post({ 'content-type': 'application/json' }, '["Acme"]');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_json');
  });

  it('refuses unknown fields with invalid_json: mass assignment is impossible', async () => {
    const response = await post({ 'content-type': 'application/json' }, JSON.stringify({ name: 'Acme', email: 'a@example.com', role: 'admin' }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_json');
    expect(await usersCount(app)).toBe(0);
  });

  it('answers 413 in the envelope for a body over 1 MiB', async () => {
    const response = await post({ 'content-type': 'application/json' }, JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ error: { code: 'payload_too_large', message: 'payload_too_large', details: { field: 'body', reason: 'must be at most 1048576 bytes' } } });
  });
});

describe('rate limits (SPEC "Limits": requests per minute)', () => {
  it('answers 429 rate_limited with Retry-After: 60 past the limit, per API key, and starts again next minute', async () => {
    const app = await createTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_WRITES_PER_MINUTE: '2' });
    try {
      const first = await createOwnerWithShop(app.context.db);
      const second = await createOwnerWithShop(app.context.db);
      const get = (token: string) => app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token) });
      for (let index = 0; index < 5; index += 1) expect((await get(first.key.token)).statusCode).toBe(200);
      const limited = await get(first.key.token);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toBe('60');
      expect(limited.json()).toEqual({ error: { code: 'rate_limited', message: 'rate_limited' } });
      // Counted per key: another key is not affected.
      expect((await get(second.key.token)).statusCode).toBe(200);
      app.clock.advance(60_000);
      expect((await get(first.key.token)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('limits requests that are not GET separately (120 of the 1,200)', async () => {
    const app = await createTestApp({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_WRITES_PER_MINUTE: '2' });
    try {
      const owner = await createOwnerWithShop(app.context.db);
      const write = () => app.request({ method: 'POST', url: '/api/v1/merchants', headers: authed(owner.session.token) });
      expect((await write()).statusCode).toBe(403);
      expect((await write()).statusCode).toBe(403);
      expect((await write()).statusCode).toBe(429);
      expect((await app.request({ method: 'GET', url: '/api/v1/me', headers: authed(owner.session.token) })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('counts unauthenticated requests per client IP, and believes X-Forwarded-For only from TRUST_PROXY', async () => {
    const app = await createTestApp({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '10.0.0.1' });
    try {
      const fromProxy = (client: string) =>
        app.request({ method: 'GET', url: '/api/v1/networks', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } });
      expect((await fromProxy('203.0.113.1')).statusCode).toBe(200);
      expect((await fromProxy('203.0.113.1')).statusCode).toBe(200);
      expect((await fromProxy('203.0.113.1')).statusCode).toBe(429);
      expect((await fromProxy('203.0.113.2')).statusCode).toBe(200);
      // An untrusted peer's X-Forwarded-For is ignored: it is counted as itself.
      const direct = () =>
        app.request({ method: 'GET', url: '/api/v1/networks', remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 200)}` } });
      expect((await direct()).statusCode).toBe(200);
      expect((await direct()).statusCode).toBe(200);
      expect((await direct()).statusCode).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('shares counters across processes through Redis (REDIS_URL)', async () => {
    const bucket = `test-${process.pid}-${Date.now()}`;
    const limits = { perMinute: 3, writesPerMinute: 0 };
    const one = new RedisRateLimiter(limits, new Redis('redis://127.0.0.1:6379'));
    const two = new RedisRateLimiter(limits, new Redis('redis://127.0.0.1:6379'));
    try {
      const now = new Date();
      expect((await one.hit(bucket, false, now)).allowed).toBe(true);
      expect((await two.hit(bucket, false, now)).allowed).toBe(true);
      expect((await one.hit(bucket, false, now)).allowed).toBe(true);
      expect((await two.hit(bucket, false, now)).allowed).toBe(false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('embedded storage (platform issue, item 3)', () => {
  it('keeps data across a restart and refuses a second process on the same data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-embedded-'));
    try {
      const first = await openEmbedded(dataDir);
      await migrate(first.db);
      await first.db.insertInto('merchants').values({ id: '00000000-0000-4000-8000-000000000001', name: 'Kept', deposit_address_limits: null }).execute();
      fs.writeFileSync(path.join(dataDir, 'ivory.lock'), String(process.ppid)); // as if another live process held it
      await expect(openEmbedded(dataDir)).rejects.toThrow(/in use by process/);
      fs.writeFileSync(path.join(dataDir, 'ivory.lock'), String(process.pid));
      await first.close();

      const second = await openEmbedded(dataDir);
      const rows = await second.db.selectFrom('merchants').select('name').execute();
      expect(rows).toEqual([{ name: 'Kept' }]);
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
