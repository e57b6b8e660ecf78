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
  readonly #limits: RunLimits;
  readonly #heldPerEndpoint: number;
  readonly #leaseMs: number;
  /** One keep-alive pool per job instance, reused by every attempt. */
  readonly #dispatcher: Agent;

  constructor(deps: DeliverWebhooksDeps, options: DeliverWebhooksOptions = {}) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#log = deps.log;
    const timeoutMs = options.attemptTimeoutMs ?? 10_000;
    const maxInFlight = options.maxInFlight ?? 64;
    const perEndpoint = Math.min(options.maxInFlightPerEndpoint ?? 16, maxInFlight);
    const maxHeld = Math.max(options.maxHeld ?? 4 * maxInFlight, maxInFlight);
    this.#heldPerEndpoint = Math.max(options.maxHeldPerEndpoint ?? 4 * perEndpoint, perEndpoint);
    // A held delivery waits at most this many rounds of attempts (all slots, or
    // all of its endpoint's, hanging until the timeout) before its own attempt;
    // a lease shorter than that would let a second worker send it too.
    const rounds = Math.max(Math.ceil(maxHeld / maxInFlight), Math.ceil(this.#heldPerEndpoint / perEndpoint));
    this.#leaseMs = Math.max(options.leaseMs ?? 60_000, (rounds + 1) * timeoutMs + 30_000);
    this.#limits = {
      maxInFlight,
      perEndpoint,
      maxHeld,
      maxPerRun: options.maxPerRun ?? 2_000,
      pollMs: options.pollMs ?? 200,
      flushMs: options.flushMs ?? 50,
    };
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
    const delivery = new DeliveryRun(this.#limits, {
      attempt: this.#attempt,
      claim: (limit, heldByEndpoint) => this.#claim(limit, heldByEndpoint),
      record: (batch) => this.#record(batch),
    });
    return delivery.deliver();
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

/** The bounds of one run, fixed by the job's options (see `DeliverWebhooksOptions`). */
interface RunLimits {
  readonly maxInFlight: number;
  readonly perEndpoint: number;
  readonly maxHeld: number;
  readonly maxPerRun: number;
  readonly pollMs: number;
  readonly flushMs: number;
}

/** What a run asks of its job: how to send, claim and record. */
interface RunWork {
  readonly attempt: AttemptSettings;
  /** Claims at most `limit` due deliveries, leaving each endpoint's held count under its cap. */
  claim(limit: number, heldByEndpoint: Counter): Promise<ClaimedDelivery[]>;
  /** Records a batch of finished attempts; returns the endpoints it disabled. */
  record(batch: readonly SentAttempt[]): Promise<string[]>;
}

/**
 * One `run` of the job: the claimed deliveries waiting for a slot, the
 * attempts in flight, the finished ones waiting to be recorded, and the loop
 * that claims, sends, records and waits until nothing is held or due. Lives
 * for one run only, so two runs of a job share nothing but the job's pool.
 */
class DeliveryRun {
  readonly #limits: RunLimits;
  readonly #work: RunWork;
  readonly #queue: ClaimedDelivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #inFlightByEndpoint = new Counter();
  readonly #heldByEndpoint = new Counter();
  readonly #finished: SentAttempt[] = [];
  #firstFinishedAt = 0;
  #lastClaimAt = Number.NEGATIVE_INFINITY;
  #lastClaimEmpty = false;
  #claimedInRun = 0;
  #recorded = 0;
  // Set by every finished attempt or record; the loop waits only when
  // nothing happened since it last looked.
  #signalled = false;
  #resolveWait: () => void = () => {};
  // The first send or record that threw: the run stops with it.
  #failure: { error: unknown } | undefined;
  // Recording runs beside claiming and sending (one batch at a time), so the
  // two transactions overlap on a pool of connections.
  #recording: Promise<void> | undefined;

  constructor(limits: RunLimits, work: RunWork) {
    this.#limits = limits;
    this.#work = work;
  }

  /** The loop; returns the attempts recorded. */
  async deliver(): Promise<number> {
    try {
      for (;;) {
        this.#signalled = false;
        if (this.#failure !== undefined) throw this.#failure.error;
        this.#dispatch();
        const now = performance.now();
        if (this.#recordingDue(now)) this.#startRecording();

        const held = this.#queue.length + this.#inFlight.size;
        const busy = held > 0 || this.#finished.length > 0 || this.#recording !== undefined;
        const room = Math.min(this.#limits.maxHeld - held, this.#limits.maxPerRun - this.#claimedInRun);
        if (this.#claimDue(now, held, room) && (await this.#claim(room)) > 0) continue;
        // Nothing held, nothing to record and the claim found nothing: done.
        if (!busy) break;

        if (this.#signalled) continue;
        await this.#waitForProgress(room);
      }
    } catch (error) {
      // Let what is in flight finish so no request outlives its run; their
      // outcomes are lost and the leases bring the deliveries back.
      await Promise.allSettled([...this.#inFlight, ...(this.#recording === undefined ? [] : [this.#recording])]);
      throw error;
    }
    return this.#recorded;
  }

  #wake(): void {
    this.#signalled = true;
    this.#resolveWait();
  }

  /** Starts attempts for queued deliveries while there are free slots, overall and for their endpoint. */
  #dispatch(): void {
    for (let index = 0; index < this.#queue.length && this.#inFlight.size < this.#limits.maxInFlight; ) {
      const claimed = this.#queue[index];
      if (claimed === undefined || this.#inFlightByEndpoint.get(claimed.endpointId) >= this.#limits.perEndpoint) {
        index += 1;
        continue;
      }
      this.#queue.splice(index, 1);
      this.#send(claimed);
    }
  }

  #send(claimed: ClaimedDelivery): void {
    this.#inFlightByEndpoint.add(claimed.endpointId, 1);
    const release = (): void => {
      this.#inFlight.delete(sending);
      this.#inFlightByEndpoint.add(claimed.endpointId, -1);
      this.#heldByEndpoint.add(claimed.endpointId, -1);
    };
    const sending: Promise<void> = sendAttempt(this.#work.attempt, claimed).then(
      (sent) => {
        if (this.#finished.length === 0) this.#firstFinishedAt = performance.now();
        this.#finished.push(sent);
        release();
        if (sent.gone) this.#dropQueued(claimed.endpointId);
        this.#wake();
      },
      // sendAttempt turns every failure of the exchange into an outcome; a
      // throw here is a bug. It ends the run (instead of leaving it waiting
      // for an attempt that never finishes), and the lease brings the
      // delivery back.
      (error: unknown) => {
        release();
        this.#failure ??= { error };
        this.#wake();
      },
    );
    this.#inFlight.add(sending);
  }

  // An endpoint that answered 410 or was just disabled gets nothing more from
  // this run; what was claimed for it is failed by the disabling transaction.
  #dropQueued(endpointId: string): void {
    for (let index = this.#queue.length - 1; index >= 0; index -= 1) {
      if (this.#queue[index]?.endpointId !== endpointId) continue;
      this.#queue.splice(index, 1);
      this.#heldByEndpoint.add(endpointId, -1);
    }
  }

  /** A batch is recorded when none is being recorded and it is full, the last of its attempts, or old enough. */
  #recordingDue(now: number): boolean {
    return (
      this.#recording === undefined &&
      this.#finished.length > 0 &&
      (this.#finished.length >= this.#limits.maxInFlight || this.#inFlight.size === 0 || now - this.#firstFinishedAt >= this.#limits.flushMs)
    );
  }

  #startRecording(): void {
    const batch = this.#finished.splice(0);
    this.#recording = this.#work
      .record(batch)
      .then(
        (disabled) => {
          for (const endpointId of disabled) this.#dropQueued(endpointId);
          this.#recorded += batch.length;
        },
        (error: unknown) => {
          this.#failure ??= { error };
        },
      )
      .finally(() => {
        this.#recording = undefined;
        this.#wake();
      });
  }

  // Claim in batches (one claim costs about the same for one row as for
  // many), at once when nothing is held, and otherwise at least every
  // pollMs, so that newly due work never waits behind slow attempts.
  #claimDue(now: number, held: number, room: number): boolean {
    const pollDue = now - this.#lastClaimAt >= this.#limits.pollMs;
    return room > 0 && (held === 0 || pollDue || (room >= this.#limits.maxInFlight && !this.#lastClaimEmpty));
  }

  /** Claims up to `room` deliveries into the queue; returns how many. */
  async #claim(room: number): Promise<number> {
    const claimed = await this.#work.claim(room, this.#heldByEndpoint);
    this.#lastClaimAt = performance.now();
    this.#lastClaimEmpty = claimed.length === 0;
    this.#claimedInRun += claimed.length;
    for (const delivery of claimed) {
      this.#queue.push(delivery);
      this.#heldByEndpoint.add(delivery.endpointId, 1);
    }
    return claimed.length;
  }

  /** Waits for an attempt or a record to finish, or for the next flush or poll. */
  async #waitForProgress(room: number): Promise<void> {
    const timers: number[] = [];
    if (this.#finished.length > 0 && this.#recording === undefined) timers.push(this.#limits.flushMs - (performance.now() - this.#firstFinishedAt));
    if (room > 0) timers.push(this.#limits.pollMs - (performance.now() - this.#lastClaimAt));
    const completion = new Promise<void>((resolve) => (this.#resolveWait = resolve));
    if (timers.length === 0) {
      await completion;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const wait = Math.max(0, Math.min(...timers));
    await Promise.race([completion, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
    clearTimeout(timer);
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
