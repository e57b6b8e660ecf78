import { describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../../src/keys/api-key-cache.js';

// Issue 13 item 1: the in-process cache of resolved API keys.
const row = (id: string) => ({ id, shopId: 's', merchantId: 'm', scopes: ['read' as const], allowedIps: [], lastUsedAt: null });

function cacheAt(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let now = 0;
  const cache = new ApiKeyCache({ ttlMs: options.ttlMs ?? 1_000, maxEntries: options.maxEntries ?? 100, now: () => now });
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('ApiKeyCache', () => {
  it('serves an entry until its TTL has passed, then forgets it', () => {
    const { cache, advance } = cacheAt({ ttlMs: 1_000 });
    cache.set('h', row('a'), cache.generation);
    advance(999);
    expect(cache.get('h')?.id).toBe('a');
    advance(1);
    expect(cache.get('h')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most maxEntries, evicting the least recently used', () => {
    const { cache } = cacheAt({ maxEntries: 2 });
    cache.set('a', row('a'), cache.generation);
    cache.set('b', row('b'), cache.generation);
    expect(cache.get('a')?.id).toBe('a'); // a is now the most recently used
    cache.set('c', row('c'), cache.generation);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('c')?.id).toBe('c');
  });

  it('clear forgets everything, and a row read before the clear is not kept after it', () => {
    const { cache } = cacheAt();
    cache.set('a', row('a'), cache.generation);
    const before = cache.generation;
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', row('b'), before); // a lookup that started before the clear
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', row('b'), cache.generation);
    expect(cache.get('b')?.id).toBe('b');
  });

  it('noteUsed updates last_used_at of a cached key, so the next hit does not stamp again', () => {
    const { cache } = cacheAt();
    cache.set('a', row('a'), cache.generation);
    const at = new Date('2026-11-24T10:00:00Z');
    cache.noteUsed('a', at);
    expect(cache.get('a')?.lastUsedAt).toEqual(at);
  });
});
