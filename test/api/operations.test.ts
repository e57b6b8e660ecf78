import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createTestApp, TEST_SECRET_KEY, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/database.js';
import { createOwnerWithShop } from '../support/factories.js';
import { deliveryJob, drainJob, emitEvent, registerEndpoint, startReceiver } from './webhooks-helpers.js';

// Issue 13 item 6 and decision 0020: /metrics behind METRICS_TOKEN, /readyz, X-Request-Id.

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ METRICS_TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await app?.close();
});

async function scrape(): Promise<string> {
  const response = await app.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

/** The value of one series (name and exact label set as Prometheus prints them), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics (Prometheus text format)', () => {
  it('is refused without the METRICS_TOKEN bearer (401 unauthorized), and does not exist when METRICS_TOKEN is unset (404)', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-of-some-length' }, { authorization: METRICS_TOKEN }]) {
      const response = await app.request({ method: 'GET', url: '/metrics', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    const plain = await createTestApp();
    try {
      const response = await plain.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'not_found' } });
    } finally {
      await plain.close();
    }
  });

  it('counts requests and their latency by route pattern (not raw URL), method and status', async () => {
    const before = await scrape();
    const series = 'ivory_http_requests_total{method="GET",route="/api/v1/checkout/:public_id",status="400"}';
    const ids = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 'not-an-id'];
    for (const id of ids) expect((await app.request({ method: 'GET', url: `/api/v1/checkout/${id}` })).statusCode).toBe(400);
    await app.request({ method: 'GET', url: '/healthz' });
    await app.request({ method: 'GET', url: '/no/such/path/123' });
    const after = await scrape();
    expect((sample(after, series) ?? 0) - (sample(before, series) ?? 0)).toBe(3);
    expect(after).not.toContain('11111111-1111-4111-8111-111111111111');
    expect(sample(after, 'ivory_http_requests_total{method="GET",route="/healthz",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'ivory_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    const count = 'ivory_http_request_duration_seconds_count{method="GET",route="/api/v1/checkout/:public_id",status="400"}';
    expect((sample(after, count) ?? 0) - (sample(before, count) ?? 0)).toBe(3);
    expect(after).toMatch(/^ivory_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\} \d+$/m);
    expect(after).toMatch(/^ivory_process_cpu_seconds_total \d/m);
  });

  it('shows the webhook queue (depth, oldest due row) and counts attempts by outcome', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const ok = await startReceiver(() => ({ status: 200 }));
    const failing = await startReceiver(() => ({ status: 500 }));
    try {
      await registerEndpoint(app, owner.key.token, owner.shop.id, ok.url, ['invoice']);
      await registerEndpoint(app, owner.key.token, owner.shop.id, failing.url, ['invoice']);
      const before = await scrape();
      await emitEvent(app, owner.shop.id, 'invoice.cancelled', { id: 'x' });
      app.clock.set(new Date(app.clock.now().getTime() + 90_000));
      const queued = await scrape();
      expect(sample(queued, 'ivory_queue_depth{queue="webhook_deliveries"}')).toBe(2);
      expect(sample(queued, 'ivory_queue_oldest_due_seconds{queue="webhook_deliveries"}')).toBeGreaterThanOrEqual(90);
      expect(sample(queued, 'ivory_queue_depth{queue="payouts"}')).toBe(0);
      expect(sample(queued, 'ivory_queue_depth{queue="allocations"}')).toBe(0);
      expect(sample(queued, 'ivory_queue_oldest_due_seconds{queue="payouts"}')).toBe(0);

      const job = deliveryJob(app);
      try {
        await drainJob(job);
      } finally {
        await job.close();
      }
      const after = await scrape();
      const delta = (outcome: string) =>
        (sample(after, `ivory_webhook_attempts_total{outcome="${outcome}"}`) ?? 0) - (sample(before, `ivory_webhook_attempts_total{outcome="${outcome}"}`) ?? 0);
      expect(delta('succeeded')).toBe(1);
      expect(delta('http_error')).toBe(1);
      // The failed one waits for its retry: still queued, not yet due.
      expect(sample(after, 'ivory_queue_depth{queue="webhook_deliveries"}')).toBe(1);
      expect(sample(after, 'ivory_queue_oldest_due_seconds{queue="webhook_deliveries"}')).toBe(0);
    } finally {
      await ok.close();
      await failing.close();
    }
  });

  it('shows each EVM network watcher lag behind the head it last saw, and how long ago it moved', async () => {
    const now = app.clock.now();
    await sql`insert into evm_scan_cursors (chain_id, next_block, head_block, updated_at) values (31337, 90, 100, ${new Date(now.getTime() - 30_000)})`.execute(app.context.db);
    try {
      const text = await scrape();
      expect(sample(text, 'ivory_chain_scan_lag_blocks{chain_id="31337"}')).toBe(11);
      expect(sample(text, 'ivory_chain_scan_age_seconds{chain_id="31337"}')).toBe(30);
    } finally {
      await sql`delete from evm_scan_cursors where chain_id = 31337`.execute(app.context.db);
    }
  });
});

describe('GET /readyz', () => {
  it('is 200 when the database answers and every migration is applied, 503 migrations_pending when one is not', async () => {
    const ready = await app.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });

    const { rows } = await sql<{ name: string; applied_at: Date }>`select name, applied_at from schema_migrations order by name desc limit 1`.execute(app.context.db);
    const last = rows[0];
    if (last === undefined) throw new Error('no migrations recorded');
    await sql`delete from schema_migrations where name = ${last.name}`.execute(app.context.db);
    try {
      const pending = await app.request({ method: 'GET', url: '/readyz' });
      expect(pending.statusCode).toBe(503);
      expect(pending.json()).toEqual({ status: 'unavailable', reason: 'migrations_pending', pending: [last.name] });
      expect((await app.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await sql`insert into schema_migrations (name, applied_at) values (${last.name}, ${last.applied_at})`.execute(app.context.db);
    }
    expect((await app.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('is 503 database_unreachable when the database does not answer', async () => {
    const database = await freshDatabase();
    const config = loadConfig({ SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent', PUBLIC_URL: 'http://ivory.test', DATA_DIR: '/nonexistent-ivory-test-dir' });
    const broken = await buildApp({ config, database, runJobs: false });
    try {
      await database.close();
      const response = await broken.server.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'unavailable', reason: 'database_unreachable' });
    } finally {
      await broken.close();
    }
  });
});

describe('X-Request-Id', () => {
  it('answers every request with a request id: a new UUID, or the caller’s own when it is sane', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const fresh = await app.request({ method: 'GET', url: '/healthz' });
    const another = await app.request({ method: 'GET', url: '/healthz' });
    expect(fresh.headers['x-request-id']).toMatch(uuid);
    expect(another.headers['x-request-id']).not.toBe(fresh.headers['x-request-id']);
    expect((await app.request({ method: 'GET', url: '/nowhere' })).headers['x-request-id']).toMatch(uuid);
    const unauthorized = await app.request({ method: 'GET', url: '/api/v1/me' });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers['x-request-id']).toMatch(uuid);

    const echoed = await app.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'lb-7f3a:42' } });
    expect(echoed.headers['x-request-id']).toBe('lb-7f3a:42');
    for (const insane of ['two words', 'x'.repeat(129), 'new\u00e9line', '']) {
      const replaced = await app.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': insane } });
      expect(replaced.headers['x-request-id'], JSON.stringify(insane)).toMatch(uuid);
    }
  });
});
