import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cannotLand, nextExpiringPayoutStep, type SignedAttempt } from '../../src/chains/expiring-payout.js';

// Issue 21 item 4: on chains whose transactions expire (Tron, Solana) a payout is signed anew
// only when every earlier transaction is proven unable to land: expired at a final height and
// absent there. Whatever crashes, exactly one sweep.

const attempt = (id: string, expiresAt: bigint, seen: SignedAttempt['seen'] = 'absent'): SignedAttempt => ({ id, expiresAt, seen });

describe('expiring payouts: when a payout may be signed again', () => {
  it('signs the first transaction when none is stored (a crash before storing left nothing that can land)', () => {
    expect(nextExpiringPayoutStep([], { final: 10n, head: 12n })).toEqual({ kind: 'sign' });
  });

  it('rebroadcasts a stored transaction that is still valid at the head (a crash between storing and broadcasting)', () => {
    expect(nextExpiringPayoutStep([attempt('a', 20n)], { final: 10n, head: 12n })).toEqual({ kind: 'rebroadcast', attemptId: 'a' });
    expect(nextExpiringPayoutStep([attempt('a', 12n)], { final: 10n, head: 12n })).toEqual({ kind: 'rebroadcast', attemptId: 'a' });
  });

  it('waits while a transaction has expired at the head but not at a final height (the head may still be rolled back)', () => {
    expect(nextExpiringPayoutStep([attempt('a', 11n)], { final: 10n, head: 12n })).toEqual({ kind: 'wait' });
    expect(nextExpiringPayoutStep([attempt('a', 10n)], { final: 10n, head: 12n })).toEqual({ kind: 'wait' });
  });

  it('signs anew once the transaction expired before the final height and is absent there', () => {
    expect(nextExpiringPayoutStep([attempt('a', 9n)], { final: 10n, head: 12n })).toEqual({ kind: 'sign' });
    expect(cannotLand(attempt('a', 9n), { final: 10n, head: 12n })).toBe(true);
  });

  it('follows a transaction that landed, even an expired one, and never signs beside it', () => {
    expect(nextExpiringPayoutStep([attempt('a', 9n, 'landed')], { final: 10n, head: 12n })).toEqual({ kind: 'follow', attemptId: 'a' });
    expect(nextExpiringPayoutStep([attempt('a', 5n), attempt('b', 30n, 'landed')], { final: 40n, head: 41n })).toEqual({ kind: 'follow', attemptId: 'b' });
  });

  it('with several attempts, rebroadcasts the newest valid one and signs only when all are proven dead', () => {
    const older = attempt('a', 9n);
    const newer = attempt('b', 25n);
    expect(nextExpiringPayoutStep([older, newer], { final: 10n, head: 12n })).toEqual({ kind: 'rebroadcast', attemptId: 'b' });
    expect(nextExpiringPayoutStep([older, newer], { final: 26n, head: 27n })).toEqual({ kind: 'sign' });
  });

  it('never answers "sign" while any earlier transaction could still land (property)', () => {
    const anAttempt = fc.record({
      id: fc.uuid(),
      expiresAt: fc.bigInt({ min: 0n, max: 100n }),
      seen: fc.constantFrom<SignedAttempt['seen']>('landed', 'absent'),
    });
    fc.assert(
      fc.property(fc.array(anAttempt, { maxLength: 5 }), fc.bigInt({ min: 0n, max: 100n }), fc.bigInt({ min: 0n, max: 10n }), (attempts, final, lead) => {
        const clocks = { final, head: final + lead };
        const step = nextExpiringPayoutStep(attempts, clocks);
        const couldLand = attempts.some((one) => one.seen === 'landed' || one.expiresAt >= final);
        if (step.kind === 'sign') expect(couldLand).toBe(false);
        if (step.kind === 'follow') expect(attempts.find((one) => one.id === step.attemptId)?.seen).toBe('landed');
        if (step.kind === 'rebroadcast') expect(attempts.find((one) => one.id === step.attemptId)?.expiresAt ?? -1n).toBeGreaterThanOrEqual(clocks.head);
      }),
      { numRuns: 2_000 },
    );
  });
});
