import type { ActiveKeyRow } from './api-keys.lookup.repository.js';

/** The channel of `notify` for any change to a key or to its merchant's or shop's standing. */
export const API_KEYS_CHANNEL = 'ivory_api_keys';

/** Kept to 1 s: the longest a change can go unseen if a notification is lost (issue 13 item 1). */
export const API_KEY_CACHE_TTL_MS = 1_000;
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  row: ActiveKeyRow;
  readonly expiresAt: number;
}

/**
 * Usable keys by token hash, so that a keyed request needs no database round
 * trip. Only keys that resolved are kept: an unknown token is never cached,
 * so a key created a moment ago or a merchant unblocked works at once, and
 * random tokens cannot fill the cache. Any change of a key or its merchant's
 * or shop's standing clears everything (`clear`, from the notification of
 * the write); each entry also lives at most `ttlMs`, so that a lost
 * notification never keeps a revoked key working longer. Time is the
 * monotonic clock, not the app's clock: this is about real staleness.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private clears = 0;

  constructor(
    private readonly options: { readonly ttlMs: number; readonly maxEntries: number; readonly now?: () => number } = {
      ttlMs: API_KEY_CACHE_TTL_MS,
      maxEntries: API_KEY_CACHE_MAX_ENTRIES,
    },
  ) {}

  /** Taken before a lookup and handed to `set`, so that a row read before a `clear` is not kept after it. */
  get generation(): number {
    return this.clears;
  }

  get size(): number {
    return this.entries.size;
  }

  get(tokenHash: string): ActiveKeyRow | undefined {
    const entry = this.entries.get(tokenHash);
    if (entry === undefined) return undefined;
    this.entries.delete(tokenHash);
    if (entry.expiresAt <= this.now()) return undefined;
    // Re-inserted: a Map iterates in insertion order, so the first entry is the least recently used.
    this.entries.set(tokenHash, entry);
    return entry.row;
  }

  set(tokenHash: string, row: ActiveKeyRow, generation: number): void {
    if (generation !== this.clears) return;
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { row, expiresAt: this.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /** After `last_used_at` was stamped, so that the next hit does not stamp again. */
  noteUsed(tokenHash: string, at: Date): void {
    const entry = this.entries.get(tokenHash);
    if (entry !== undefined) entry.row = { ...entry.row, lastUsedAt: at };
  }

  clear(): void {
    this.clears += 1;
    this.entries.clear();
  }

  private now(): number {
    return (this.options.now ?? performance.now.bind(performance))();
  }
}
