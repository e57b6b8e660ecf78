/**
 * When a failed webhook delivery is tried again. SPEC leaves the schedule
 * unshown ("Events", delivery rule 6); this is ours.
 *
 * `RETRY_SCHEDULE_SECONDS[n - 1]` is the nominal delay before attempt `n`,
 * counted from the end of attempt `n - 1`. Attempt 1 is immediate; the backoff
 * then grows to a day. The last attempt lands about four days after the first
 * (nominal), and no earlier than three days even if every wait draws the
 * lowest jitter: a receiver down for three days still gets every event. The schedule is data, not timers: the delivery job stores
 * `next_attempt_at` and a worker picks the row up when it is due.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = Object.freeze([
  0,
  5,
  30,
  2 * 60,
  5 * 60,
  15 * 60,
  30 * 60,
  60 * 60,
  2 * 60 * 60,
  4 * 60 * 60,
  8 * 60 * 60,
  12 * 60 * 60,
  24 * 60 * 60,
  24 * 60 * 60,
  24 * 60 * 60,
]);

/** Attempts in all, the first included. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length;

/** Nominal time from the first attempt to the last (no jitter): 4 d 3 h 52 min 35 s. */
export const RETRY_SCHEDULE_TOTAL_SECONDS = RETRY_SCHEDULE_SECONDS.reduce((sum, seconds) => sum + seconds, 0);

/** Spread of the random jitter: each nominal delay becomes delay × [0.8, 1.2). */
export const RETRY_JITTER_RATIO = 0.2;

/** The longest wait a receiver's Retry-After can ask for. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/**
 * Seconds to wait after attempt `attemptNumber` (1-based) failed, before the
 * next one; `undefined` when that was the last attempt.
 *
 * Without Retry-After the nominal delay is jittered by ±20% so that deliveries
 * failing together (a receiver outage) do not come back together. A
 * Retry-After from the receiver replaces the jittered delay, clamped into
 * [nominal delay, 24 h]: we never come back sooner than the schedule says, and
 * a receiver cannot park a delivery for longer than a day.
 *
 * `random` returns a number in [0, 1), like `Math.random`; tests pass their own.
 */
export function nextAttemptDelay(
  attemptNumber: number,
  random: () => number = Math.random,
  retryAfterSeconds?: number,
): number | undefined {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new Error(`attempt numbers start at 1, got ${attemptNumber}`);
  }
  const nominal = RETRY_SCHEDULE_SECONDS[attemptNumber];
  if (nominal === undefined) return undefined;
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)) {
    // No nominal delay exceeds 24 h, so the interval is never empty.
    return Math.min(Math.max(retryAfterSeconds, nominal), MAX_RETRY_AFTER_SECONDS);
  }
  const jitter = (random() * 2 - 1) * RETRY_JITTER_RATIO;
  return nominal * (1 + jitter);
}

/** The schedule as a markdown table, for the README. */
export function describeSchedule(): string {
  const rows = ['| Attempt | Wait before it | Time since first attempt |', '| ---: | ---: | ---: |'];
  let elapsed = 0;
  RETRY_SCHEDULE_SECONDS.forEach((delay, index) => {
    elapsed += delay;
    const wait = index === 0 ? 'immediately' : formatDuration(delay);
    rows.push(`| ${index + 1} | ${wait} | ${index === 0 ? '0 s' : formatDuration(elapsed)} |`);
  });
  rows.push('');
  rows.push(
    `Each wait varies randomly by ±${RETRY_JITTER_RATIO * 100}%. A \`Retry-After\` response header ` +
      `(seconds or HTTP date) is honoured when it asks for longer than the schedule, up to 24 h.`,
  );
  return rows.join('\n');
}

function formatDuration(totalSeconds: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = totalSeconds;
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${name}`);
    rest -= count * size;
  }
  return parts.length === 0 ? '0 s' : parts.join(' ');
}
