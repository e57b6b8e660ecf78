import type { Redis } from 'ioredis';

export interface RateLimitDecision {
  readonly allowed: boolean;
}

/**
 * SPEC "Limits": per minute, at most `perMinute` requests of which at most
 * `writesPerMinute` are not GET, per bucket (API key, session or client IP).
 * Fixed one-minute windows; a limit of 0 turns that limit off.
 */
export interface RateLimiter {
  hit(bucket: string, isWrite: boolean, now: Date): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface RateLimits {
  readonly perMinute: number;
  readonly writesPerMinute: number;
}

function windowOf(now: Date): number {
  return Math.floor(now.getTime() / 60_000);
}

function decide(limits: RateLimits, total: number, writes: number, isWrite: boolean): RateLimitDecision {
  const overTotal = limits.perMinute > 0 && total > limits.perMinute;
  // A GET is never refused for the writes already made, only for the total.
  const overWrites = isWrite && limits.writesPerMinute > 0 && writes > limits.writesPerMinute;
  return { allowed: !overTotal && !overWrites };
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #limits: RateLimits;
  #window = -1;
  #counts = new Map<string, { total: number; writes: number }>();

  constructor(limits: RateLimits) {
    this.#limits = limits;
  }

  async hit(bucket: string, isWrite: boolean, now: Date): Promise<RateLimitDecision> {
    if (this.#limits.perMinute === 0 && this.#limits.writesPerMinute === 0) return { allowed: true };
    const window = windowOf(now);
    if (window !== this.#window) {
      // A new minute: every counter starts again, and the old ones are dropped.
      this.#window = window;
      this.#counts = new Map();
    }
    let count = this.#counts.get(bucket);
    if (count === undefined) {
      count = { total: 0, writes: 0 };
      this.#counts.set(bucket, count);
    }
    count.total += 1;
    if (isWrite) count.writes += 1;
    return decide(this.#limits, count.total, count.writes, isWrite);
  }

  async close(): Promise<void> {}
}

/** Counters shared by every process through Redis (REDIS_URL). */
export class RedisRateLimiter implements RateLimiter {
  readonly #limits: RateLimits;
  readonly #redis: Redis;

  constructor(limits: RateLimits, redis: Redis) {
    this.#limits = limits;
    this.#redis = redis;
  }

  async hit(bucket: string, isWrite: boolean, now: Date): Promise<RateLimitDecision> {
    if (this.#limits.perMinute === 0 && this.#limits.writesPerMinute === 0) return { allowed: true };
    const prefix = `ivory:rl:${windowOf(now)}:${bucket}`;
    const pipeline = this.#redis.multi().incr(`${prefix}:all`).expire(`${prefix}:all`, 120);
    if (isWrite) pipeline.incr(`${prefix}:w`).expire(`${prefix}:w`, 120);
    const results = (await pipeline.exec()) ?? [];
    const total = Number(results[0]?.[1] ?? 0);
    const writes = isWrite ? Number(results[2]?.[1] ?? 0) : 0;
    return decide(this.#limits, total, writes, isWrite);
  }

  async close(): Promise<void> {
    await this.#redis.quit();
  }
}
