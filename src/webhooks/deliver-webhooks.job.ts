import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db, type Tx } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import { attemptSucceeded, decideDelivery, endpointHealth } from './delivery-outcome.js';
import { brandedSignatureHeader, standardWebhookHeaders } from './signature.js';
import { createGuardedDispatcher, postWebhook, type HostLookup } from './ssrf.js';
import {
  claimDueDeliveries,
  clearEndpointFailing,
  disableEndpoint,
  failPendingDeliveries,
  markEndpointFailing,
  recordAttempts,
  type ClaimedDelivery,
  type FinishedAttempt,
} from './webhooks.repository.js';
import { DISABLE_FAILING_AFTER_MS } from './webhook-endpoint.js';

export interface DeliverWebhooksDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly log: FastifyBaseLogger;
  /** Prefix of the branded headers (`<brand>-Signature` …). */
  readonly brand: string;
  readonly publicUrl: string;
  readonly allowPrivate: boolean;
}

export interface DeliverWebhooksOptions {
  /** Deliveries in flight at once, across all endpoints. */
  readonly maxInFlight?: number;
  /** In flight at once to one endpoint, so that one slow receiver leaves room for the others. */
  readonly maxInFlightPerEndpoint?: number;
  /** One attempt from connect to the last byte read (SPEC: 10 s). */
  readonly attemptTimeoutMs?: number;
  /** How long a claimed delivery stays hidden from other workers; longer than an attempt. */
  readonly leaseMs?: number;
  /** Deliveries claimed by one `run` before it returns (lets the runner stop under load). */
  readonly maxPerRun?: number;
  /** How often a run with free slots looks for newly due deliveries while others are in flight. */
  readonly pollMs?: number;
  readonly idleMs?: number;
  /** Bytes of the receiver's answer kept in the delivery log. */
  readonly maxResponseBytes?: number;
  /** Jitter source, [0, 1) like Math.random. */
  readonly random?: () => number;
  /** Replaces the system resolver of the SSRF guard (tests). */
  readonly lookup?: HostLookup;
}

interface Sent {
  readonly claimed: ClaimedDelivery;
  readonly finished: FinishedAttempt;
  readonly succeeded: boolean;
  readonly gone: boolean;
  readonly at: Date;
}

/**
 * The webhook delivery worker (SPEC "Events", delivery rules; ARCHITECTURE
 * rule 4). Each run claims due deliveries in a short statement that leases
 * them, commits, POSTs outside any transaction, and records each attempt and
 * its outcome in another short transaction. Up to `maxInFlight` requests run
 * at once, at most `maxInFlightPerEndpoint` per endpoint, and free slots are
 * refilled as soon as they free up: a receiver that hangs until the timeout
 * holds only its own slots, never the deliveries of other endpoints.
 *
 * At-least-once: a worker that dies after sending but before recording leaves
 * the lease to run out and the delivery is sent again (same event id, new
 * attempt id), which receivers dedupe by event id.
 */
export class DeliverWebhooksJob implements Job {
  readonly name = 'deliver-webhooks';
  readonly idleMs: number;
  readonly #deps: DeliverWebhooksDeps;
  readonly #maxInFlight: number;
  readonly #perEndpoint: number;
  readonly #timeoutMs: number;
  readonly #leaseMs: number;
  readonly #maxPerRun: number;
  readonly #pollMs: number;
  readonly #maxResponseBytes: number;
  readonly #random: () => number;
  readonly #userAgent: string;
  /** One keep-alive pool per job instance, reused by every attempt. */
  readonly #dispatcher: Agent;

  constructor(deps: DeliverWebhooksDeps, options: DeliverWebhooksOptions = {}) {
    this.#deps = deps;
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#perEndpoint = Math.min(options.maxInFlightPerEndpoint ?? 8, this.#maxInFlight);
    this.#timeoutMs = options.attemptTimeoutMs ?? 10_000;
    // A lease shorter than an attempt would let a second worker send while the first still waits.
    this.#leaseMs = Math.max(options.leaseMs ?? 60_000, this.#timeoutMs + 30_000);
    this.#maxPerRun = options.maxPerRun ?? 1_000;
    this.#pollMs = options.pollMs ?? 200;
    this.idleMs = options.idleMs ?? 250;
    this.#maxResponseBytes = options.maxResponseBytes ?? 1_024;
    this.#random = options.random ?? Math.random;
    this.#userAgent = `${deps.brand}-Webhooks/1 (+${deps.publicUrl})`;
    this.#dispatcher = createGuardedDispatcher({
      allowPrivate: deps.allowPrivate,
      connectTimeoutMs: Math.min(this.#timeoutMs, 10_000),
      ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    });
  }

  /** Closes the kept-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  async run(): Promise<number> {
    const inFlight = new Set<Promise<void>>();
    const inFlightByEndpoint = new Map<string, number>();
    const finished: Sent[] = [];
    let wake: () => void = () => {};
    let claimedInRun = 0;
    let recorded = 0;

    const start = (claimed: ClaimedDelivery): void => {
      inFlightByEndpoint.set(claimed.endpointId, (inFlightByEndpoint.get(claimed.endpointId) ?? 0) + 1);
      const sending: Promise<void> = this.#send(claimed).then((sent) => {
        finished.push(sent);
        inFlight.delete(sending);
        const left = (inFlightByEndpoint.get(claimed.endpointId) ?? 1) - 1;
        if (left === 0) inFlightByEndpoint.delete(claimed.endpointId);
        else inFlightByEndpoint.set(claimed.endpointId, left);
        wake();
      });
      inFlight.add(sending);
    };

    try {
      for (;;) {
        if (finished.length > 0) {
          const batch = finished.splice(0);
          await this.#record(batch);
          recorded += batch.length;
        }
        const free = Math.min(this.#maxInFlight - inFlight.size, this.#maxPerRun - claimedInRun);
        let claimedNow = 0;
        if (free > 0) {
          const claimed = await this.#claim(free, inFlightByEndpoint);
          claimedNow = claimed.length;
          claimedInRun += claimed.length;
          for (const delivery of claimed) start(delivery);
        }
        if (inFlight.size === 0 && finished.length === 0) {
          if (claimedNow === 0 || claimedInRun >= this.#maxPerRun) break;
          continue;
        }
        if (finished.length > 0) continue;
        // Wait for a finished attempt; while slots are free, also look again
        // for deliveries that fell due meanwhile.
        const completion = new Promise<void>((resolve) => (wake = resolve));
        const canClaimMore = this.#maxInFlight - inFlight.size > 0 && claimedInRun < this.#maxPerRun;
        if (canClaimMore) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([completion, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#pollMs)))]);
          clearTimeout(timer);
        } else {
          await completion;
        }
      }
    } catch (error) {
      // Let what is in flight finish so no attempt outlives its run; their
      // outcomes are lost with this batch and the leases bring them back.
      await Promise.allSettled(inFlight);
      throw error;
    }
    return recorded;
  }

  async #claim(limit: number, inFlightByEndpoint: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
    const now = this.#deps.clock.now();
    const roomByEndpoint: Record<string, number> = {};
    for (const [endpointId, count] of inFlightByEndpoint) roomByEndpoint[endpointId] = Math.max(0, this.#perEndpoint - count);
    return claimDueDeliveries(this.#deps.db, {
      now,
      leaseUntil: new Date(now.getTime() + this.#leaseMs),
      leaseToken: newId(),
      limit,
      scan: Math.max(256, limit * 8),
      perEndpointCap: this.#perEndpoint,
      roomByEndpoint,
    });
  }

  /** One attempt. Never throws: every failure becomes the attempt's outcome. */
  async #send(claimed: ClaimedDelivery): Promise<Sent> {
    const attemptId = newId();
    const startedAt = this.#deps.clock.now();
    let result: Awaited<ReturnType<typeof postWebhook>>;
    try {
      const body = Buffer.from(claimed.envelope, 'utf8');
      const secrets = this.#signingSecrets(claimed, startedAt);
      // The signed timestamp is the attempt's own time, so a retry days later
      // still passes the receiver's 300-second tolerance.
      const timestamp = Math.floor(startedAt.getTime() / 1000);
      const brand = this.#deps.brand;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': this.#userAgent,
        [`${brand}-Signature`]: brandedSignatureHeader(secrets, timestamp, body),
        [`${brand}-Event-ID`]: claimed.eventId,
        [`${brand}-Attempt-ID`]: attemptId,
        ...standardWebhookHeaders(secrets, claimed.eventId, timestamp, body),
      };
      result = await postWebhook(this.#dispatcher, claimed.url, {
        headers,
        body,
        timeoutMs: this.#timeoutMs,
        maxResponseBytes: this.#maxResponseBytes,
      });
    } catch (error) {
      // Only a broken secret or envelope gets here; it is logged and retried like any failure.
      this.#deps.log.error({ err: error, deliveryId: claimed.id }, 'webhook attempt could not be prepared');
      result = { ok: false, error: 'internal error preparing the request', latencyMs: 0 };
    }
    const at = this.#deps.clock.now();
    const decision = decideDelivery(result, claimed.attempts - claimed.roundStartedAt + 1, at, this.#random);
    return {
      claimed,
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
  #signingSecrets(claimed: ClaimedDelivery, now: Date): string[] {
    const secrets = [this.#deps.secrets.open(claimed.secretSealed)];
    if (claimed.previousSecretSealed !== null && claimed.previousSecretExpiresAt !== null && claimed.previousSecretExpiresAt > now) {
      secrets.push(this.#deps.secrets.open(claimed.previousSecretSealed));
    }
    return secrets;
  }

  /** Logs the attempts and applies their outcomes, in one short transaction. */
  async #record(batch: readonly Sent[]): Promise<void> {
    const now = this.#deps.clock.now();
    const byEndpoint = new Map<string, Sent[]>();
    for (const sent of batch) {
      const list = byEndpoint.get(sent.claimed.endpointId) ?? [];
      list.push(sent);
      byEndpoint.set(sent.claimed.endpointId, list);
    }
    const disabled: Array<{ endpointId: string; reason: 'gone' | 'failing' }> = [];
    await inTransaction(this.#deps.db, async (trx) => {
      disabled.length = 0;
      await recordAttempts(
        trx,
        batch.map((sent) => sent.finished),
      );
      for (const endpointId of [...byEndpoint.keys()].sort()) {
        const reason = await this.#applyHealth(trx, endpointId, byEndpoint.get(endpointId) ?? [], now);
        if (reason !== undefined) disabled.push({ endpointId, reason });
      }
    });
    for (const { endpointId, reason } of disabled) {
      this.#deps.log.warn({ endpointId, reason }, 'webhook endpoint disabled');
    }
  }

  async #applyHealth(trx: Tx, endpointId: string, attempts: readonly Sent[], now: Date): Promise<'gone' | 'failing' | undefined> {
    const health = endpointHealth(attempts);
    if (health.gone) {
      if (await disableEndpoint(trx, endpointId, 'gone', now)) {
        await failPendingDeliveries(trx, endpointId);
        return 'gone';
      }
      return undefined;
    }
    if (health.failingFrom === undefined) {
      if (health.succeeded) await clearEndpointFailing(trx, endpointId);
      return undefined;
    }
    await markEndpointFailing(trx, endpointId, health.failingFrom, health.succeeded);
    if (await disableEndpoint(trx, endpointId, 'failing', now, new Date(now.getTime() - DISABLE_FAILING_AFTER_MS))) {
      await failPendingDeliveries(trx, endpointId);
      return 'failing';
    }
    return undefined;
  }
}

/** PostgreSQL text cannot hold NUL; a receiver's answer may. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}
