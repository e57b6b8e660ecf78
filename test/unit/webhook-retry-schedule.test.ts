import { describe, expect, it } from 'vitest';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_AFTER_SECONDS,
  RETRY_JITTER_RATIO,
  RETRY_SCHEDULE_SECONDS,
  RETRY_SCHEDULE_TOTAL_SECONDS,
  describeSchedule,
  nextAttemptDelay,
} from '../../src/webhook-delivery/retry-schedule.js';

// SPEC "Events", delivery rule 6 leaves the schedule to us; these tests pin the
// choices documented in retry-schedule.ts.

const DAY = 86_400;
const lowest = (): number => 0;
const highest = (): number => 1 - Number.EPSILON;
const middle = (): number => 0.5;

describe('RETRY_SCHEDULE_SECONDS', () => {
  it('starts with an immediate attempt and never shortens the wait', () => {
    expect(RETRY_SCHEDULE_SECONDS[0]).toBe(0);
    for (let index = 1; index < RETRY_SCHEDULE_SECONDS.length; index += 1) {
      expect(RETRY_SCHEDULE_SECONDS[index]).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[index - 1] ?? 0);
    }
    expect(Math.max(...RETRY_SCHEDULE_SECONDS)).toBeLessThanOrEqual(DAY);
  });

  it('keeps retrying for at least three days even when every wait draws the lowest jitter, and gives up within five', () => {
    expect(RETRY_SCHEDULE_TOTAL_SECONDS).toBe(RETRY_SCHEDULE_SECONDS.reduce((sum, seconds) => sum + seconds, 0));
    expect(RETRY_SCHEDULE_TOTAL_SECONDS * (1 - RETRY_JITTER_RATIO)).toBeGreaterThanOrEqual(3 * DAY);
    expect(RETRY_SCHEDULE_TOTAL_SECONDS * (1 + RETRY_JITTER_RATIO)).toBeLessThanOrEqual(5 * DAY);
  });

  it('is frozen configuration', () => {
    expect(Object.isFrozen(RETRY_SCHEDULE_SECONDS)).toBe(true);
  });
});

describe('nextAttemptDelay', () => {
  it('gives the nominal delay with neutral jitter', () => {
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt += 1) {
      expect(nextAttemptDelay(attempt, middle)).toBeCloseTo(RETRY_SCHEDULE_SECONDS[attempt] ?? Number.NaN, 9);
    }
    expect(nextAttemptDelay(1, middle)).toBeCloseTo(5, 9);
  });

  it('keeps jitter within ±20% of the nominal delay', () => {
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt += 1) {
      const nominal = RETRY_SCHEDULE_SECONDS[attempt] ?? Number.NaN;
      expect(nextAttemptDelay(attempt, lowest)).toBeCloseTo(nominal * 0.8, 9);
      expect(nextAttemptDelay(attempt, highest)).toBeLessThan(nominal * 1.2 + 1e-9);
      for (let sample = 0; sample < 200; sample += 1) {
        const delay = nextAttemptDelay(attempt) ?? Number.NaN;
        expect(delay).toBeGreaterThanOrEqual(nominal * 0.8);
        expect(delay).toBeLessThan(nominal * 1.2);
      }
    }
  });

  it('actually varies between calls', () => {
    const delays = new Set(Array.from({ length: 20 }, () => nextAttemptDelay(5)));
    expect(delays.size).toBeGreaterThan(1);
  });

  it('returns undefined once the last attempt has failed', () => {
    expect(nextAttemptDelay(MAX_DELIVERY_ATTEMPTS - 1, middle)).toBe(DAY);
    expect(nextAttemptDelay(MAX_DELIVERY_ATTEMPTS, middle)).toBeUndefined();
    expect(nextAttemptDelay(MAX_DELIVERY_ATTEMPTS + 5, middle, 60)).toBeUndefined();
  });

  it('refuses attempt numbers that are not positive integers (a caller bug)', () => {
    expect(() => nextAttemptDelay(0)).toThrow();
    expect(() => nextAttemptDelay(1.5)).toThrow();
  });

  describe('with Retry-After', () => {
    it('honours a longer Retry-After exactly, without jitter', () => {
      expect(nextAttemptDelay(1, lowest, 600)).toBe(600);
      expect(nextAttemptDelay(1, highest, 600)).toBe(600);
    });

    it('never comes back sooner than the schedule', () => {
      expect(nextAttemptDelay(3, middle, 1)).toBe(RETRY_SCHEDULE_SECONDS[3]);
      expect(nextAttemptDelay(3, middle, 0)).toBe(RETRY_SCHEDULE_SECONDS[3]);
      expect(nextAttemptDelay(3, middle, -50)).toBe(RETRY_SCHEDULE_SECONDS[3]);
    });

    it('waits at most 24 h however long the receiver asks', () => {
      expect(MAX_RETRY_AFTER_SECONDS).toBe(DAY);
      expect(nextAttemptDelay(1, middle, 10 * DAY)).toBe(DAY);
      expect(nextAttemptDelay(MAX_DELIVERY_ATTEMPTS - 1, middle, 10 * DAY)).toBe(DAY);
    });

    it('ignores a non-finite value and falls back to jitter', () => {
      expect(nextAttemptDelay(2, lowest, Number.NaN)).toBeCloseTo((RETRY_SCHEDULE_SECONDS[2] ?? 0) * 0.8, 9);
    });
  });
});

describe('describeSchedule', () => {
  it('is a markdown table with one row per attempt', () => {
    const table = describeSchedule();
    const rows = table.split('\n').filter((line) => /^\| \d+ \|/.test(line));
    expect(rows).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(rows[0]).toBe('| 1 | immediately | 0 s |');
    expect(rows[1]).toBe('| 2 | 5 s | 5 s |');
    expect(rows.at(-1)).toBe(`| ${MAX_DELIVERY_ATTEMPTS} | 1 d | 4 d 3 h 52 min 35 s |`);
    expect(table).toContain('±20%');
  });
});
