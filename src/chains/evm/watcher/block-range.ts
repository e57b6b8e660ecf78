/** Quiet successes before growing past a width the provider refused, to see whether the limit moved. */
const PROBE_AFTER = 32;
/** Unexplained failures of one width in a row before it is treated as refused. */
const FAILURES_BEFORE_SHRINKING = 2;

/**
 * The width of the next `eth_getLogs` query: halved when the provider refuses
 * a range (or when a range was crowded), doubled after a quiet one, always
 * within 1..max. A refused width is remembered, so a provider with a fixed
 * limit is not asked too wide again on every pass, only now and then.
 * Tuning only: it is kept in memory, the cursor is not.
 */
export class AdaptiveBlockRange {
  readonly #max: number;
  #size: number;
  #refused = Number.POSITIVE_INFINITY;
  #quietSinceRefusal = 0;
  #failuresInARow = 0;

  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
    this.#size = this.#max;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * After a query of the current width failed in a way that does not say why
   * (a timeout, a connection dropped mid-answer, a truncated or malformed
   * answer). Once is bad luck; the same failure twice in a row is treated as
   * a refusal, since an answer too large for something between the node and
   * us fails exactly like this on every retry. True when the width shrank.
   */
  failed(): boolean {
    this.#failuresInARow += 1;
    if (this.#failuresInARow < FAILURES_BEFORE_SHRINKING) return false;
    this.#failuresInARow = 0;
    return this.refused();
  }

  /** After the provider refused the current width. False when it is already one block. */
  refused(): boolean {
    if (this.#size === 1) return false;
    this.#refused = Math.min(this.#refused, this.#size);
    this.#quietSinceRefusal = 0;
    this.#size = Math.max(1, Math.floor(this.#size / 2));
    return true;
  }

  /** After a successful query of `logCount` logs. */
  settle(logCount: number, crowded: number, quiet: number): void {
    this.#failuresInARow = 0;
    if (logCount > crowded) {
      this.#size = Math.max(1, Math.floor(this.#size / 2));
      return;
    }
    if (logCount >= quiet) return;
    const doubled = Math.min(this.#max, this.#size * 2);
    if (doubled < this.#refused) {
      this.#size = doubled;
    } else if ((this.#quietSinceRefusal += 1) >= PROBE_AFTER) {
      this.#refused = Number.POSITIVE_INFINITY;
      this.#size = doubled;
    }
  }
}
