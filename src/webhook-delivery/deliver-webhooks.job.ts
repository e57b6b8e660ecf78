import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import type { Db } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import { recordFinishedAttempts } from './record-attempts.js';
import { sendAttempt, type AttemptSettings, type SentAttempt } from './send-attempt.js';
import { createGuardedDispatcher, type HostLookup } from '../platform/http-client/ssrf.js';
import { claimDueDeliveries, type ClaimedDelivery } from './webhook-delivery.repository.js';

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
  /** Requests in flight at once, across all endpoints. */
  readonly maxInFlight?: number;
  /** Requests in flight at once to one endpoint, so that a slow receiver leaves room for the others. */
  readonly maxInFlightPerEndpoint?: number;
  /** One attempt, from connect to the last byte read (issue: 10 s). */
  readonly attemptTimeoutMs?: number;
  /** Claimed deliveries held (queued or in flight) at once; claiming ahead lets a claim and a record serve many. */
  readonly maxHeld?: number;
  /** Claimed deliveries held at once for one endpoint. */
  readonly maxHeldPerEndpoint?: number;
  /** Lower bound of the lease; it is raised to cover the longest a held delivery can wait plus its attempt. */
  readonly leaseMs?: number;
  /** Deliveries claimed by one `run` before it returns (lets the runner stop under load). */
  readonly maxPerRun?: number;
  /** While requests are in flight, how often to look for newly due deliveries. */
  readonly pollMs?: number;
  /** The longest a finished attempt waits to be recorded with others. */
  readonly flushMs?: number;
  /**
   * The pause after a run that found nothing due. It is the latency of every
   * delivery committed while the worker waits (SPEC's webhooks are the
   * merchant's signal that money arrived): 50 ms took the bench's p99 from
   * ~500 to ~150 ms, for one indexed claim query 20 times a second when idle.
   */
  readonly idleMs?: number;
  /** Bytes of the receiver's answer kept in the delivery log. */
  readonly maxResponseBytes?: number;
  /** Jitter source, [0, 1) like Math.random. */
  readonly random?: () => number;
  /** Replaces the system resolver of the SSRF guard (tests). */
  readonly lookup?: HostLookup;
}

/**
 * The webhook delivery worker (SPEC "Events", delivery rules; ARCHITECTURE
 * rules 1 and 4). A run claims due deliveries in a short transaction that
 * leases them, POSTs outside any transaction, and records finished attempts in
 * another short transaction, in batches: on either backend the database, not
 * the network, is what limits throughput.
 *
 * No head-of-line blocking: at most `maxInFlight` requests run at once, at
 * most `maxInFlightPerEndpoint` to one endpoint, and slots are refilled as
 * they free up, so a receiver that hangs until the timeout holds only its own
 * slots. At most `maxHeldPerEndpoint` deliveries of one endpoint are claimed
 * ahead, and the lease covers the longest they can wait.
 *
 * At-least-once: a worker that dies after sending but before recording leaves
 * its lease to run out and the delivery is sent again (same event id and
 * bytes, new attempt id), which receivers dedupe by event id.
 */
export class DeliverWebhooksJob implements Job {
  readonly name = 'deliver-webhooks';
  readonly idleMs: number;
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #attempt: AttemptSettings;
  readonly #maxInFlight: number;
  readonly #perEndpoint: number;
  readonly #maxHeld: number;
  readonly #heldPerEndpoint: number;
  readonly #leaseMs: number;
  readonly #maxPerRun: number;
  readonly #pollMs: number;
  readonly #flushMs: number;
  /** One keep-alive pool per job instance, reused by every attempt. */
  readonly #dispatcher: Agent;

  constructor(deps: DeliverWebhooksDeps, options: DeliverWebhooksOptions = {}) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#log = deps.log;
    const timeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.#maxInFlight = options.maxInFlight ?? 64;
    this.#perEndpoint = Math.min(options.maxInFlightPerEndpoint ?? 16, this.#maxInFlight);
    this.#maxHeld = Math.max(options.maxHeld ?? 4 * this.#maxInFlight, this.#maxInFlight);
    this.#heldPerEndpoint = Math.max(options.maxHeldPerEndpoint ?? 4 * this.#perEndpoint, this.#perEndpoint);
    // A held delivery waits at most this many rounds of attempts (all slots, or
    // all of its endpoint's, hanging until the timeout) before its own attempt;
    // a lease shorter than that would let a second worker send it too.
    const rounds = Math.max(Math.ceil(this.#maxHeld / this.#maxInFlight), Math.ceil(this.#heldPerEndpoint / this.#perEndpoint));
    this.#leaseMs = Math.max(options.leaseMs ?? 60_000, (rounds + 1) * timeoutMs + 30_000);
    this.#maxPerRun = options.maxPerRun ?? 2_000;
    this.#pollMs = options.pollMs ?? 200;
    this.#flushMs = options.flushMs ?? 50;
    this.idleMs = options.idleMs ?? 50;
    this.#dispatcher = createGuardedDispatcher({
      allowPrivate: deps.allowPrivate,
      connectTimeoutMs: Math.min(timeoutMs, 10_000),
      ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
    });
    this.#attempt = {
      clock: deps.clock,
      secrets: deps.secrets,
      brand: deps.brand,
      userAgent: `${deps.brand}-Webhooks/1 (+${deps.publicUrl})`,
      dispatcher: this.#dispatcher,
      timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? 1_024,
      random: options.random ?? Math.random,
      onError: (error, deliveryId) => deps.log.error({ err: error, deliveryId }, 'webhook attempt could not be prepared'),
    };
  }

  /** Closes the kept-alive connections (tests, shutdown). */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }

  /** Delivers until nothing is due (or `maxPerRun` were claimed); returns the attempts recorded. */
  async run(): Promise<number> {
    const queue: ClaimedDelivery[] = [];
    const inFlight = new Set<Promise<void>>();
    const inFlightByEndpoint = new Counter();
    const heldByEndpoint = new Counter();
    const finished: SentAttempt[] = [];
    let firstFinishedAt = 0;
    let lastClaimAt = Number.NEGATIVE_INFINITY;
    let lastClaimEmpty = false;
    let claimedInRun = 0;
    let recorded = 0;
    // Set by every finished attempt or record; the loop waits only when
    // nothing happened since it last looked.
    let signalled = false;
    let resolveWait: () => void = () => {};
    const wake = (): void => {
      signalled = true;
      resolveWait();
    };

    // The first send or record that threw: the run stops with it.
    let failure: { error: unknown } | undefined;

    // An endpoint that answered 410 or was just disabled gets nothing more from
    // this run; what was claimed for it is failed by the disabling transaction.
    const dropQueued = (endpointId: string): void => {
      for (let index = queue.length - 1; index >= 0; index -= 1) {
        if (queue[index]?.endpointId !== endpointId) continue;
        queue.splice(index, 1);
        heldByEndpoint.add(endpointId, -1);
      }
    };

    const dispatch = (): void => {
      for (let index = 0; index < queue.length && inFlight.size < this.#maxInFlight; ) {
        const claimed = queue[index];
        if (claimed === undefined || inFlightByEndpoint.get(claimed.endpointId) >= this.#perEndpoint) {
          index += 1;
          continue;
        }
        queue.splice(index, 1);
        inFlightByEndpoint.add(claimed.endpointId, 1);
        const release = (): void => {
          inFlight.delete(sending);
          inFlightByEndpoint.add(claimed.endpointId, -1);
          heldByEndpoint.add(claimed.endpointId, -1);
        };
        const sending: Promise<void> = sendAttempt(this.#attempt, claimed).then(
          (sent) => {
            if (finished.length === 0) firstFinishedAt = performance.now();
            finished.push(sent);
            release();
            if (sent.gone) dropQueued(claimed.endpointId);
            wake();
          },
          // sendAttempt turns every failure of the exchange into an outcome; a
          // throw here is a bug. It ends the run (instead of leaving it waiting
          // for an attempt that never finishes), and the lease brings the
          // delivery back.
          (error: unknown) => {
            release();
            failure ??= { error };
            wake();
          },
        );
        inFlight.add(sending);
      }
    };

    // Recording runs beside claiming and sending (one batch at a time), so the
    // two transactions overlap on a pool of connections.
    let recording: Promise<void> | undefined;
    const startRecording = (): void => {
      const batch = finished.splice(0);
      recording = this.#record(batch)
        .then(
          (disabled) => {
            for (const endpointId of disabled) dropQueued(endpointId);
            recorded += batch.length;
          },
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(() => {
          recording = undefined;
          wake();
        });
    };

    try {
      for (;;) {
        signalled = false;
        if (failure !== undefined) throw failure.error;
        dispatch();
        const now = performance.now();
        if (
          recording === undefined &&
          finished.length > 0 &&
          (finished.length >= this.#maxInFlight || inFlight.size === 0 || now - firstFinishedAt >= this.#flushMs)
        ) {
          startRecording();
        }

        const held = queue.length + inFlight.size;
        const busy = held > 0 || finished.length > 0 || recording !== undefined;
        const room = Math.min(this.#maxHeld - held, this.#maxPerRun - claimedInRun);
        // Claim in batches (one claim costs about the same for one row as for
        // many), at once when nothing is held, and otherwise at least every
        // pollMs, so that newly due work never waits behind slow attempts.
        const pollDue = now - lastClaimAt >= this.#pollMs;
        if (room > 0 && (held === 0 || pollDue || (room >= this.#maxInFlight && !lastClaimEmpty))) {
          const claimed = await this.#claim(room, heldByEndpoint);
          lastClaimAt = performance.now();
          lastClaimEmpty = claimed.length === 0;
          claimedInRun += claimed.length;
          for (const delivery of claimed) {
            queue.push(delivery);
            heldByEndpoint.add(delivery.endpointId, 1);
          }
          if (claimed.length > 0) continue;
        }
        // Nothing held, nothing to record and the claim found nothing: done.
        if (!busy) break;

        // Wait for an attempt or a record to finish, or for the next flush or poll.
        if (signalled) continue;
        const timers: number[] = [];
        if (finished.length > 0 && recording === undefined) timers.push(this.#flushMs - (performance.now() - firstFinishedAt));
        if (room > 0) timers.push(this.#pollMs - (performance.now() - lastClaimAt));
        const completion = new Promise<void>((resolve) => (resolveWait = resolve));
        if (timers.length === 0) {
          await completion;
        } else {
          let timer: NodeJS.Timeout | undefined;
          const wait = Math.max(0, Math.min(...timers));
          await Promise.race([completion, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
          clearTimeout(timer);
        }
      }
    } catch (error) {
      // Let what is in flight finish so no request outlives its run; their
      // outcomes are lost and the leases bring the deliveries back.
      await Promise.allSettled([...inFlight, ...(recording === undefined ? [] : [recording])]);
      throw error;
    }
    return recorded;
  }

  async #claim(limit: number, heldByEndpoint: Counter): Promise<ClaimedDelivery[]> {
    const now = this.#clock.now();
    const roomByEndpoint: Record<string, number> = {};
    for (const [endpointId, held] of heldByEndpoint.entries()) roomByEndpoint[endpointId] = Math.max(0, this.#heldPerEndpoint - held);
    return claimDueDeliveries(this.#db, {
      now,
      leaseUntil: new Date(now.getTime() + this.#leaseMs),
      leaseToken: newId(),
      limit,
      scan: Math.max(256, limit * 4),
      perEndpointCap: this.#heldPerEndpoint,
      roomByEndpoint,
    });
  }

  /** Records a batch; returns the endpoints it disabled. */
  async #record(batch: readonly SentAttempt[]): Promise<string[]> {
    const disabled = await recordFinishedAttempts(this.#db, this.#clock, batch);
    for (const { endpointId, reason } of disabled) this.#log.warn({ endpointId, reason }, 'webhook endpoint disabled');
    return disabled.map((endpoint) => endpoint.endpointId);
  }
}

/** Counts per key; a key whose count returns to zero is dropped. */
class Counter {
  readonly #counts = new Map<string, number>();

  get(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  add(key: string, delta: number): void {
    const next = this.get(key) + delta;
    if (next === 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
  }

  entries(): IterableIterator<[string, number]> {
    return this.#counts.entries();
  }
}
