import { describe, expect, it } from 'vitest';
import { instructionPosition, readAhead } from '../../src/chains/ingest/index.js';

// ARCHITECTURE "Chains" (one ingest pipeline), issue 22 item 1: catch-up keeps several ranges
// in flight while the cursor advances strictly in order; decision 0027 (the natural key's position).

type Range = { from: number; to: number };

/** A source of 10-block ranges up to block 99 that records when each read starts and ends. */
function source(options: { failAt?: number; narrowAt?: number } = {}) {
  const started: number[] = [];
  let waiting = 0;
  let mostWaiting = 0;
  const read = (from: number) => async (): Promise<Range | null> => {
    started.push(from);
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (from === options.failAt) throw new Error(`read ${from} failed`);
    if (from > 99) return null;
    const to = Math.min(99, from === options.narrowAt ? from + 4 : from + 9);
    waiting += 1;
    mostWaiting = Math.max(mostWaiting, waiting);
    return { from, to };
  };
  const consumed = () => {
    waiting -= 1;
  };
  return { read, started, consumed, mostWaiting: () => mostWaiting };
}

async function consume(ranges: AsyncGenerator<Range>, consumed: () => void, slow = 5): Promise<Range[]> {
  const seen: Range[] = [];
  for await (const range of ranges) {
    seen.push(range);
    consumed();
    await new Promise((resolve) => setTimeout(resolve, slow));
  }
  return seen;
}

describe('readAhead (catch-up reads ahead, commits in order)', () => {
  it('yields every range in order, each starting where the previous one ended, narrowed or not', async () => {
    const ranges = source({ narrowAt: 30 });
    const seen = await consume(readAhead(ranges.read(0), (previous) => ranges.read(previous.to + 1), 4), ranges.consumed);
    let next = 0;
    for (const range of seen) {
      expect(range.from).toBe(next);
      next = range.to + 1;
    }
    expect(next).toBe(100);
    // Reads go out one at a time, in block order: no gap, no overlap.
    expect(ranges.started.slice(0, seen.length)).toEqual(seen.map((range) => range.from));
  });

  it('keeps several ranges answered ahead of a slow consumer, never more than the depth', async () => {
    const ranges = source();
    await consume(readAhead(ranges.read(0), (previous) => ranges.read(previous.to + 1), 3), ranges.consumed, 20);
    expect(ranges.mostWaiting()).toBeGreaterThan(1);
    expect(ranges.mostWaiting()).toBeLessThanOrEqual(3);
  });

  it('stops where `following` says, and throws a failed read only when the consumer reaches it', async () => {
    const stopped = source();
    const seen = await consume(readAhead(stopped.read(0), (previous) => (previous.to < 29 ? stopped.read(previous.to + 1) : null), 4), stopped.consumed);
    expect(seen.map((range) => range.from)).toEqual([0, 10, 20]);

    const failing = source({ failAt: 20 });
    const before: Range[] = [];
    await expect(
      (async () => {
        for await (const range of readAhead(failing.read(0), (previous) => failing.read(previous.to + 1), 4)) before.push(range);
      })(),
    ).rejects.toThrow('read 20 failed');
    expect(before.map((range) => range.from)).toEqual([0, 10]);
  });
});

describe('the natural key position (decision 0027)', () => {
  it('encodes a Solana instruction and inner instruction as one integer, in execution order', () => {
    expect(instructionPosition(0, null)).toBe(0);
    expect(instructionPosition(0, 0)).toBe(1);
    expect(instructionPosition(1, null)).toBe(65_536);
    expect(instructionPosition(2, 3)).toBe(2 * 65_536 + 4);
    expect(instructionPosition(1, 65_533)).toBeLessThan(instructionPosition(2, null));
    expect(instructionPosition(32_767, 65_534)).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(() => instructionPosition(32_768, null)).toThrow(RangeError);
    expect(() => instructionPosition(-1, null)).toThrow(RangeError);
  });
});
