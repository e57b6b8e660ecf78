/**
 * The width of the next `eth_getLogs` query: halved when the provider refuses
 * a range (or when a range was crowded), doubled after a quiet one, always
 * within 1..max. Tuning only: it is kept in memory, the cursor is not.
 */
export class AdaptiveBlockRange {
  readonly #max: number;
  #size: number;

  constructor(max: number) {
    this.#max = Math.max(1, Math.floor(max));
    this.#size = this.#max;
  }

  get size(): number {
    return this.#size;
  }

  /** Returns false when the range is already one block: nothing left to shrink. */
  shrink(): boolean {
    if (this.#size === 1) return false;
    this.#size = Math.max(1, Math.floor(this.#size / 2));
    return true;
  }

  /** After a successful query of `logCount` logs. */
  settle(logCount: number, crowded: number, quiet: number): void {
    if (logCount > crowded) this.shrink();
    else if (logCount < quiet) this.#size = Math.min(this.#max, this.#size * 2);
  }
}
