import type { Registry } from 'prom-client';
import { readAllocationQueue } from './allocation/index.js';
import { readScanLags } from './chains/index.js';
import { readPayoutQueue } from './payouts/index.js';
import { readDeliveryQueue, webhookAttemptsMetric } from './webhook-delivery/index.js';
import type { Clock } from './platform/clock.js';
import type { Db } from './platform/database/database.js';
import { createMetrics, metricsRoutes } from './platform/http/metrics.js';
import type { IvoryServer } from './platform/http/server.js';

/**
 * /metrics (decision 0020), composed here because it reads several modules'
 * queues: served only when METRICS_TOKEN is set, and only then are requests
 * counted. Call before the routes are registered, so the counting hook covers them.
 */
export async function registerMetrics(server: IvoryServer, deps: { readonly db: Db; readonly clock: Clock; readonly token: string | undefined }): Promise<Registry | undefined> {
  if (deps.token === undefined) return undefined;
  const { db, clock } = deps;
  const registry = createMetrics(server, {
    queues: {
      webhook_deliveries: () => readDeliveryQueue(db, clock.now()),
      payouts: () => readPayoutQueue(db, clock.now()),
      allocations: () => readAllocationQueue(db, clock.now()),
    },
    scanLags: () => readScanLags(db, clock.now()),
  });
  registry.registerMetric(webhookAttemptsMetric);
  const token = deps.token;
  await server.register(async (root) => metricsRoutes(root, { registry, token }));
  return registry;
}
