import { Counter } from 'prom-client';
import type { SentAttempt } from './send-attempt.js';

/**
 * Webhook attempts this process made, by outcome: `succeeded` (2xx),
 * `http_error` (another status), `no_response` (timeout, refused connection,
 * SSRF guard). Registered in no registry here: the composition root adds it
 * to the app's /metrics registry.
 */
export const webhookAttemptsMetric = new Counter({
  name: 'ivory_webhook_attempts_total',
  help: 'Webhook delivery attempts made by this process, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [],
});

export function countAttempts(batch: readonly SentAttempt[]): void {
  for (const sent of batch) {
    webhookAttemptsMetric.inc({ outcome: sent.succeeded ? 'succeeded' : sent.finished.statusCode === null ? 'no_response' : 'http_error' });
  }
}
