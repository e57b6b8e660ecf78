import { nextAttemptDelay } from './retry-schedule.js';
import type { PostWebhookResult } from '../platform/http-client/ssrf.js';

/**
 * An endpoint whose deliveries have failed without a single success for this
 * long is disabled (reason `failing`). Longer than the retry schedule (a little
 * over three days), so one event's full run of retries never disables alone.
 */
export const DISABLE_FAILING_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** Why an endpoint stopped receiving: set by the merchant or by the worker. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/**
 * What one attempt means for its delivery (SPEC "Events", delivery rules; the
 * schedule in retry-schedule.ts). Pure: the worker stores the answer.
 *
 * - any 2xx: delivered;
 * - 410 Gone: the receiver says the endpoint is gone for good; the delivery
 *   fails and the endpoint is disabled;
 * - anything else (other statuses, redirects, timeouts, connection errors,
 *   an address refused by the SSRF guard): tried again after the schedule's
 *   delay (or the receiver's Retry-After, clamped), until the last attempt.
 */
export type DeliveryDecision =
  | { readonly status: 'succeeded' }
  | { readonly status: 'pending'; readonly nextAttemptAt: Date }
  | { readonly status: 'failed'; readonly endpointGone: boolean };

export function decideDelivery(
  result: PostWebhookResult,
  /** 1-based number of this attempt within the current round of the schedule. */
  attemptNumber: number,
  now: Date,
  random: () => number,
): DeliveryDecision {
  if (result.ok && result.status >= 200 && result.status < 300) return { status: 'succeeded' };
  if (result.ok && result.status === 410) return { status: 'failed', endpointGone: true };
  const retryAfter = result.ok ? result.retryAfterSeconds : undefined;
  const delaySeconds = nextAttemptDelay(attemptNumber, random, retryAfter);
  if (delaySeconds === undefined) return { status: 'failed', endpointGone: false };
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + Math.round(delaySeconds * 1000)) };
}

/** True when the attempt counts as a success for the endpoint's health. */
export function attemptSucceeded(result: PostWebhookResult): boolean {
  return result.ok && result.status >= 200 && result.status < 300;
}

/**
 * The net effect of a batch of attempts on one endpoint's health, in the
 * order they finished: a success clears `failing_since`; the first failure
 * after the last success (if any) starts it.
 */
export interface EndpointHealth {
  readonly succeeded: boolean;
  readonly failingFrom: Date | undefined;
  readonly gone: boolean;
}

export function endpointHealth(attempts: ReadonlyArray<{ readonly succeeded: boolean; readonly gone: boolean; readonly at: Date }>): EndpointHealth {
  let succeeded = false;
  let failingFrom: Date | undefined;
  let gone = false;
  for (const attempt of attempts) {
    if (attempt.gone) gone = true;
    if (attempt.succeeded) {
      succeeded = true;
      failingFrom = undefined;
    } else if (failingFrom === undefined) {
      failingFrom = attempt.at;
    }
  }
  return { succeeded, failingFrom, gone };
}
