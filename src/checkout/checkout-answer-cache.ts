/**
 * Serialized GET /checkout answers of single issuances, each kept with the
 * view stamp it was made from. An answer is served only while the stamp read
 * from the database is the same, so the cache never answers for a change any
 * process has committed; it only saves building and serializing the answer
 * again for the payer pages that poll it. Bounded: the oldest entry goes first.
 */
export class CheckoutAnswerCache {
  readonly #entries = new Map<string, { readonly stamp: string; readonly body: string }>();

  constructor(readonly capacity = 10_000) {}

  /** Whether an answer is kept for this id at all: if not, reading its stamp would be a wasted round trip. */
  has(publicId: string): boolean {
    return this.#entries.has(publicId);
  }

  get(publicId: string, stamp: string): string | undefined {
    const entry = this.#entries.get(publicId);
    return entry !== undefined && entry.stamp === stamp ? entry.body : undefined;
  }

  set(publicId: string, stamp: string, body: string): void {
    this.#entries.delete(publicId);
    this.#entries.set(publicId, { stamp, body });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
