import type { AppContext } from '../app-context.js';
import type { Job } from '../platform/jobs.js';
import { DeliverWebhooksJob } from './deliver-webhooks.job.js';

/**
 * The delivery engine: fan-out of events into deliveries (an outbox
 * subscriber, composed by `app.ts`), signing, the delivery worker, endpoint
 * health. Endpoints and the delivery log's API are `webhooks/`.
 */
export { DeliverWebhooksJob, type DeliverWebhooksDeps, type DeliverWebhooksOptions } from './deliver-webhooks.job.js';
export { fanOutEvent, type FannedOutEvent } from './fan-out-event.js';
export { describeSchedule, MAX_DELIVERY_ATTEMPTS, RETRY_SCHEDULE_SECONDS } from './retry-schedule.js';
export { newWebhookSecret, verifyBrandedSignature, SIGNATURE_TOLERANCE_SECONDS } from './signature.js';
export type { DisabledReason } from './delivery-outcome.js';
export { webhookAttemptsMetric } from './delivery-metrics.js';
export { readDeliveryQueue } from './delivery-queue.repository.js';
export { failPendingDeliveries, lockDeliveryForReplay, requeueDelivery, requeueFailedDeliveries } from './webhook-delivery.repository.js';

/** The delivery worker, built once per app from its context. */
export function webhookDeliveryJobs(context: AppContext): Job[] {
  if (context.config.webhookAllowPrivate) {
    context.log.warn(
      'WEBHOOK_ALLOW_PRIVATE is on: webhook endpoints may use plain http and private or loopback addresses. For development only.',
    );
  }
  return [new DeliverWebhooksJob(deliverWebhooksDeps(context))];
}

/** The worker's dependencies out of an app context (tests and the bench build their own workers with other options). */
export function deliverWebhooksDeps(context: AppContext) {
  return {
    db: context.db,
    clock: context.clock,
    secrets: context.secrets,
    log: context.log,
    brand: context.config.brand,
    publicUrl: context.config.publicUrl,
    allowPrivate: context.config.webhookAllowPrivate,
  };
}
