import type { Dispatcher } from 'undici';
import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import { attemptSucceeded, decideDelivery } from './delivery-outcome.js';
import { brandedSignatureHeader, standardWebhookHeaders } from './signature.js';
import { postWebhook, type PostWebhookResult } from '../platform/http-client/ssrf.js';
import type { ClaimedDelivery, FinishedAttempt } from './webhook-delivery.repository.js';

export interface AttemptSettings {
  readonly clock: Clock;
  readonly secrets: SecretBox;
  /** Prefix of the branded headers (`<brand>-Signature` …). */
  readonly brand: string;
  readonly userAgent: string;
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly random: () => number;
  readonly onError: (error: unknown, deliveryId: string) => void;
}

/** One attempt and what it means, ready to be recorded. */
export interface SentAttempt {
  readonly endpointId: string;
  readonly finished: FinishedAttempt;
  readonly succeeded: boolean;
  readonly gone: boolean;
  readonly at: Date;
}

/**
 * POSTs a claimed delivery once (SPEC "Events", delivery rules 1–2): the
 * event's stored bytes, signed at the attempt's own time, under the event id,
 * with a new attempt id. Never throws: every failure becomes the outcome.
 */
export async function sendAttempt(settings: AttemptSettings, claimed: ClaimedDelivery): Promise<SentAttempt> {
  const attemptId = newId();
  const startedAt = settings.clock.now();
  let result: PostWebhookResult;
  try {
    const body = Buffer.from(claimed.envelope, 'utf8');
    const secrets = signingSecrets(settings.secrets, claimed, startedAt);
    // The attempt's own time, so a retry days later still passes the
    // receiver's 300-second tolerance.
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': settings.userAgent,
      [`${settings.brand}-Signature`]: brandedSignatureHeader(secrets, timestamp, body),
      [`${settings.brand}-Event-ID`]: claimed.eventId,
      [`${settings.brand}-Attempt-ID`]: attemptId,
      ...standardWebhookHeaders(secrets, claimed.eventId, timestamp, body),
    };
    result = await postWebhook(settings.dispatcher, claimed.url, {
      headers,
      body,
      timeoutMs: settings.timeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
      now: () => settings.clock.now(),
    });
  } catch (error) {
    // Only an unreadable secret gets here; logged, and retried like any failure.
    settings.onError(error, claimed.id);
    result = { ok: false, error: 'internal error preparing the request', latencyMs: 0 };
  }
  const decision = decideDelivery(result, claimed.attempts - claimed.roundStartedAt + 1, settings.clock.now(), settings.random);
  return {
    endpointId: claimed.endpointId,
    succeeded: attemptSucceeded(result),
    gone: decision.status === 'failed' && decision.endpointGone,
    at: startedAt,
    finished: {
      attemptId,
      deliveryId: claimed.id,
      shopId: claimed.shopId,
      leaseToken: claimed.leaseToken,
      startedAt,
      statusCode: result.ok ? result.status : null,
      latencyMs: result.latencyMs,
      error: result.ok ? null : storable(result.error),
      responseExcerpt: result.ok ? storable(result.responseExcerpt) : null,
      decision,
    },
  };
}

/** The current secret, and the rotated-out one while its overlap lasts. */
function signingSecrets(box: SecretBox, claimed: ClaimedDelivery, now: Date): string[] {
  const secrets = [box.open(claimed.secretSealed)];
  if (claimed.previousSecretSealed !== null && claimed.previousSecretExpiresAt !== null && claimed.previousSecretExpiresAt > now) {
    secrets.push(box.open(claimed.previousSecretSealed));
  }
  return secrets;
}

/** PostgreSQL text cannot hold NUL; a receiver's answer may. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}
