import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'vitest';
import { inTransaction } from '../../src/platform/database/database.js';
import { appendEvent } from '../../src/events/index.js';
import { createTestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { deliveryJob, registerEndpoint } from './webhooks-helpers.js';
import { systemClock } from '../../src/platform/clock.js';

it('perf', async () => {
  const app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
  const received = new Map<string, number>();
  const server = createServer((req, res) => { let n = 0; req.on('data', (c) => (n += c.length)); req.on('end', () => { received.set(String(req.headers['ivory-event-id']), Date.now()); res.end('ok'); }); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const owner = await createOwnerWithShop(app.context.db);
  await registerEndpoint(app as never, owner.key.token, owner.shop.id, url, ['transfer']);
  const N = Number(process.env.N ?? 3000);
  const job = deliveryJob(app, { idleMs: 5, ...(process.env.PER ? { maxInFlightPerEndpoint: Number(process.env.PER), maxInFlight: Number(process.env.PER) * 2 } : {}) });
  const committed = new Map<string, number>();
  const t0 = Date.now();
  let stop = false;
  let loop: Promise<void> = Promise.resolve();
  const startLoop = () => { loop = (async () => { while (!stop) { const n = await job.run(); if (n === 0) await new Promise((r) => setTimeout(r, 5)); } })(); };
  if (!process.env.PRE) startLoop();
  // emit at a steady pace in batches
  for (let i = 0; i < N; i += 10) {
    await inTransaction(app.context.db, async (trx) => {
      for (let k = 0; k < 10; k += 1) {
        const e = await appendEvent(trx, new Date(), { shopId: owner.shop.id, type: 'transfer.confirmed', data: { n: i + k } });
        committed.set(e.id, 0);
      }
    });
    const now = Date.now();
    for (const [id, v] of committed) if (v === 0) committed.set(id, now);
  }
  const t1 = Date.now();
  if (process.env.PRE) startLoop();
  while (received.size < N) await new Promise((r) => setTimeout(r, 10));
  const t2 = Date.now();
  stop = true; await loop;
  const lat = [...received].map(([id, at]) => at - (committed.get(id) ?? at)).sort((a, b) => a - b);
  console.warn(`pre-drain ${(N / ((t2 - t1) / 1000)).toFixed(0)}/s`, JSON.stringify((globalThis as any).__wh));
  console.warn(`N=${N} emit ${t1 - t0} ms, all delivered after ${t2 - t0} ms => ${(N / ((t2 - t0) / 1000)).toFixed(0)}/s; p50 ${lat[Math.floor(N * 0.5)]} p99 ${lat[Math.floor(N * 0.99)]} ms`);
  await job.close(); server.closeAllConnections(); server.close(); await app.close();
}, 300_000);
