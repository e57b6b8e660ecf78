import { describe, expect, it } from 'vitest';
import { parseReturnTo } from '../../src/identity-provider/return-to.js';

// Decision 0014: GET /auth/google?return_to= takes a same-origin path only, so a
// sign-in link cannot forward its user to another site after the callback.

describe('parseReturnTo', () => {
  it.each(['/', '/dashboard', '/dashboard?tab=shops&x=1', '/a/b#section', '/%2F%2Fencoded', '/caf%C3%A9'])('keeps the same-origin path %j', (path) => {
    expect(parseReturnTo(path)).toBe(path);
  });

  it.each([
    '',
    'dashboard',
    '//evil.example',
    '//evil.example/path',
    '/\\evil.example',
    '/\\/evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/a b',
    '/a\tb',
    '/a\nb',
    '/\u0000',
    '/\u007f',
    `/${'a'.repeat(2048)}`,
  ])('refuses %j', (raw) => {
    expect(parseReturnTo(raw)).toBeUndefined();
  });
});
