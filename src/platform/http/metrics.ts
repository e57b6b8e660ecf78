import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { constantTimeEqual } from '../crypto.js';
import { IvoryError } from '../errors.js';
import type { IvoryServer } from './server.js';

/** A work queue's state at a scrape: rows waiting, and how late the most overdue one is. */
export interface QueueStats {
  readonly depth: number;
  /** Seconds since the oldest due row became due; 0 when none is due. */
  readonly oldestDueSeconds: number;
}

/** One EVM network's watcher, from its stored cursor. */
export interface ScanLag {
  readonly chainId: number;
  /** Blocks between the last head the watcher saw and the next block it will scan. */
  readonly lagBlocks: number;
  /** Seconds since the watcher last moved its cursor (a stalled watcher shows here, not in the lag). */
  readonly ageSeconds: number;
}

export interface OperationalSources {
  /** Queues by name (`webhook_deliveries`, `payouts`, `allocations`), read from the database at each scrape. */
  readonly queues: Readonly<Record<string, () => Promise<QueueStats>>>;
  readonly scanLags: () => Promise<readonly ScanLag[]>;
}

/**
 * A registry for one app: process metrics, HTTP requests by route pattern and
 * status (counted by a hook on `server`), and gauges read at scrape time from
 * `sources`, so they hold whichever process wrote the rows (`--role worker`).
 */
export function createMetrics(server: IvoryServer, sources: OperationalSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ivory_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'ivory_http_requests_total', help: 'HTTP requests answered, by route pattern and status.', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'ivory_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by route pattern and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  server.addHook('onResponse', async (request, reply) => {
    // The pattern (`/api/v1/shops/:id`), never the raw URL: one series per route, not per id.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });

  const readQueues = async () => Promise.all(Object.entries(sources.queues).map(async ([queue, read]) => ({ queue, ...(await read()) })));
  gaugesOfScrape(registry, readQueues, { name: 'queue', of: (queue) => queue.queue }, {
    ivory_queue_depth: { help: 'Rows waiting in a work queue (due now or later).', value: (queue) => queue.depth },
    ivory_queue_oldest_due_seconds: {
      help: 'How long the most overdue row of a work queue has been due; 0 when none is.',
      value: (queue) => queue.oldestDueSeconds,
    },
  });
  gaugesOfScrape(registry, sources.scanLags, { name: 'chain_id', of: (network) => String(network.chainId) }, {
    ivory_chain_scan_lag_blocks: { help: 'Blocks the EVM watcher of a network is behind the last head it saw.', value: (network) => network.lagBlocks },
    ivory_chain_scan_age_seconds: { help: 'Seconds since the EVM watcher of a network last moved its cursor.', value: (network) => network.ageSeconds },
  });
  return registry;
}

/**
 * Gauges set afresh at each scrape from one source: a series per item that
 * `read` returns, labelled by `label`; series of items gone since are dropped.
 * prom-client collects the metrics of a scrape concurrently, so the gauges
 * share one read of the source.
 */
function gaugesOfScrape<Item>(
  registry: Registry,
  read: () => Promise<readonly Item[]>,
  label: { readonly name: string; readonly of: (item: Item) => string },
  gauges: Readonly<Record<string, { readonly help: string; readonly value: (item: Item) => number }>>,
): void {
  const readOnce = oncePerScrape(read);
  for (const [name, gauge] of Object.entries(gauges)) {
    new Gauge({
      name,
      help: gauge.help,
      labelNames: [label.name],
      registers: [registry],
      async collect() {
        this.reset();
        for (const item of await readOnce()) this.set({ [label.name]: label.of(item) }, gauge.value(item));
      },
    });
  }
}

/** One read shared by every caller while it is under way (the gauges of one scrape), a new one after. */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  return () => {
    current ??= read().finally(() => {
      current = undefined;
    });
    return current;
  };
}

/**
 * `GET /metrics` in Prometheus text format, on the root like /healthz. It
 * tells request rates and queue sizes, which are an operator's business:
 * `Authorization: Bearer <METRICS_TOKEN>` is required (401 otherwise, compared
 * in constant time); without METRICS_TOKEN the route does not exist (decision 0020).
 */
export async function metricsRoutes(app: IvoryServer, options: { readonly registry: Registry; readonly token: string }): Promise<void> {
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (match?.[1] === undefined || !constantTimeEqual(match[1], options.token)) throw new IvoryError('unauthorized');
    const text = await options.registry.metrics();
    return reply.header('content-type', options.registry.contentType).send(text);
  });
}
