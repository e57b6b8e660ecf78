import type { Clock } from '../platform/clock.js';
import { inTransaction, type Db, type Tx } from '../platform/database/database.js';
import { DISABLE_FAILING_AFTER_MS, endpointHealth } from './delivery-outcome.js';
import { countAttempts } from './delivery-metrics.js';
import type { SentAttempt } from './send-attempt.js';
import {
  clearEndpointFailing,
  failPendingDeliveries,
  disableEndpoint,
  markEndpointFailing,
  recordAttempts,
  relaxDurability,
} from './webhook-delivery.repository.js';

export interface DisabledEndpoint {
  readonly endpointId: string;
  readonly reason: 'gone' | 'failing';
}

/**
 * Logs a batch of finished attempts and applies their outcomes in one short
 * transaction: each delivery moves on (delivered, retry due, failed), and each
 * endpoint's health follows: a success ends its failure streak; 410 Gone, or a
 * streak older than five days, disables it and fails what it had pending.
 * Returns the endpoints this batch disabled.
 */
export async function recordFinishedAttempts(db: Db, clock: Clock, batch: readonly SentAttempt[]): Promise<DisabledEndpoint[]> {
  const now = clock.now();
  const byEndpoint = new Map<string, SentAttempt[]>();
  for (const sent of batch) byEndpoint.set(sent.endpointId, [...(byEndpoint.get(sent.endpointId) ?? []), sent]);
  const disabledEndpoints = await inTransaction(db, async (trx) => {
    await relaxDurability(trx);
    await recordAttempts(
      trx,
      batch.map((sent) => sent.finished),
    );
    const disabled: DisabledEndpoint[] = [];
    // One order for every worker, so that concurrent batches cannot deadlock on endpoints.
    for (const endpointId of [...byEndpoint.keys()].sort()) {
      const reason = await applyHealth(trx, endpointId, byEndpoint.get(endpointId) ?? [], now);
      if (reason !== undefined) disabled.push({ endpointId, reason });
    }
    return disabled;
  });
  // After the commit: a batch rolled back and retried is counted once.
  countAttempts(batch);
  return disabledEndpoints;
}

async function applyHealth(trx: Tx, endpointId: string, attempts: readonly SentAttempt[], now: Date): Promise<'gone' | 'failing' | undefined> {
  const health = endpointHealth(attempts);
  if (health.gone) {
    if (!(await disableEndpoint(trx, endpointId, 'gone', now))) return undefined;
    await failPendingDeliveries(trx, endpointId);
    return 'gone';
  }
  if (health.failingFrom === undefined) {
    if (health.succeeded) await clearEndpointFailing(trx, endpointId);
    return undefined;
  }
  await markEndpointFailing(trx, endpointId, health.failingFrom, health.succeeded);
  if (!(await disableEndpoint(trx, endpointId, 'failing', now, new Date(now.getTime() - DISABLE_FAILING_AFTER_MS)))) return undefined;
  await failPendingDeliveries(trx, endpointId);
  return 'failing';
}
