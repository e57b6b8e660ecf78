import { describe, expect, it } from 'vitest';
import { CLIENT_TEXT, LANGS, TEXT } from '../../src/dashboard/dashboard-text.js';

// Issue 25 item 4: English and Russian, both complete. The labels' type makes Russian carry
// every English key; the script's words are a plain record, so both are checked here too.

/** Every leaf of a nested dictionary as `path → text`. */
function leaves(value: unknown, path = ''): Map<string, unknown> {
  if (value === null || typeof value !== 'object') return new Map([[path, value]]);
  return new Map(Object.entries(value).flatMap(([key, inner]) => [...leaves(inner, path === '' ? key : `${path}.${key}`)]));
}

describe('dashboard text in every language (issue 25 item 4)', () => {
  it.each([
    ['labels', TEXT],
    ['script words', CLIENT_TEXT],
  ] as const)('%s: the same keys in every language, each a non-empty text', (_name, dictionary) => {
    const english = leaves(dictionary.en);
    for (const lang of LANGS) {
      const own = leaves(dictionary[lang]);
      expect([...own.keys()].sort(), lang).toEqual([...english.keys()].sort());
      for (const [key, text] of own) expect(typeof text === 'string' && text.trim() !== '', `${lang} ${key}`).toBe(true);
    }
  });
});
