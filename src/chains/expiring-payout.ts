/**
 * The payout rule for chains whose transactions expire (issue 21 item 4):
 * Tron transactions carry an expiration time (about a minute), Solana's a
 * recent blockhash valid up to a block height. "Store the signed transaction,
 * rebroadcast it after a crash" (the EVM rule, where a nonce makes every
 * re-signature a replacement) is not enough there: once a transaction has
 * expired it can never land, and the payout needs a new signature — but a
 * new signature while the old one can still land is a second sweep.
 *
 * So: a payout may be signed anew only when every transaction signed for it
 * before is proven unable to land — expired as seen at a FINAL height (the
 * solidified block on Tron, the finalized block height on Solana) and absent
 * from the chain at that height. Anything short of that proof waits. The
 * caller stores each signed transaction (with its expiry) before broadcasting
 * it, so a crash between signing, storing and broadcasting leaves either no
 * transaction (nothing can land) or a stored one this rule accounts for.
 *
 * Pure: the chain is read by the caller, outside any database transaction.
 */

/**
 * One transaction signed for the payout. `expiresAt` is in the chain's expiry
 * clock: milliseconds since the epoch of a block's timestamp (Tron), or a block
 * height (Solana's `lastValidBlockHeight`). The transaction can be included
 * only in a block whose clock is at most `expiresAt`.
 */
export interface SignedAttempt {
  readonly id: string;
  readonly expiresAt: bigint;
  /**
   * What the node says of it: `landed` — in a block (final or not);
   * `absent` — in no block, asked at the final commitment.
   */
  readonly seen: 'landed' | 'absent';
}

export interface ExpiryClocks {
  /** The expiry clock of the newest block that can no longer be rolled back. */
  readonly final: bigint;
  /** The expiry clock of the newest block (the head). */
  readonly head: bigint;
}

export type ExpiringPayoutStep =
  /** A transaction of this payout is in the chain: follow it; never sign another. */
  | { readonly kind: 'follow'; readonly attemptId: string }
  /** The newest transaction can still be included: send it (again). */
  | { readonly kind: 'rebroadcast'; readonly attemptId: string }
  /** Expired at the head, not yet proven at a final height: ask again later. */
  | { readonly kind: 'wait' }
  /** No transaction exists, or every one is proven unable to land: sign a new one. */
  | { readonly kind: 'sign' };

/** Proven unable to land: absent, and its expiry is behind the final height. */
export function cannotLand(attempt: SignedAttempt, clocks: ExpiryClocks): boolean {
  return attempt.seen === 'absent' && attempt.expiresAt < clocks.final;
}

export function nextExpiringPayoutStep(attempts: readonly SignedAttempt[], clocks: ExpiryClocks): ExpiringPayoutStep {
  const landed = attempts.find((attempt) => attempt.seen === 'landed');
  if (landed !== undefined) return { kind: 'follow', attemptId: landed.id };
  if (attempts.every((attempt) => cannotLand(attempt, clocks))) return { kind: 'sign' };
  // Some attempt may still land. Only the newest is worth sending again; older
  // ones expire first and are proven dead in their turn.
  const newest = attempts.reduce((latest, attempt) => (attempt.expiresAt > latest.expiresAt ? attempt : latest));
  if (newest.expiresAt >= clocks.head) return { kind: 'rebroadcast', attemptId: newest.id };
  return { kind: 'wait' };
}
