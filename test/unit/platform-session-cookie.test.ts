import { describe, expect, it } from 'vitest';
import { readSessionCookie, sessionCookieSettings } from '../../src/platform/http/session-cookie.js';

// Issue 10, item 3; SPEC "Authentication" 2: how the HTTP core finds the
// dashboard session in a Cookie header, and the cookie's settings from
// BRAND and PUBLIC_URL (decision 0013).

describe('readSessionCookie', () => {
  const token = 'aB3_-xYz0123456789aB3_-xYz0123456789abcdefg';

  it('finds the named cookie among others, whitespace around it ignored', () => {
    expect(readSessionCookie(`ivory_session=${token}`, 'ivory_session')).toBe(token);
    expect(readSessionCookie(`theme=dark;ivory_session=${token}; lang=en`, 'ivory_session')).toBe(token);
    expect(readSessionCookie(`  ivory_session = ${token}  `, 'ivory_session')).toBe(token);
  });

  it('the first of two cookies of the same name wins', () => {
    expect(readSessionCookie(`ivory_session=${token}; ivory_session=other`, 'ivory_session')).toBe(token);
  });

  it('no header, another name, a name that only contains it, or a value that is not a token: nothing', () => {
    expect(readSessionCookie(undefined, 'ivory_session')).toBeUndefined();
    expect(readSessionCookie('', 'ivory_session')).toBeUndefined();
    expect(readSessionCookie(`acme_session=${token}`, 'ivory_session')).toBeUndefined();
    expect(readSessionCookie(`xivory_session=${token}; ivory_sessionx=${token}`, 'ivory_session')).toBeUndefined();
    expect(readSessionCookie('ivory_session', 'ivory_session')).toBeUndefined();
    expect(readSessionCookie('ivory_session=', 'ivory_session')).toBeUndefined();
    expect(readSessionCookie(`ivory_session="${token}"`, 'ivory_session')).toBeUndefined();
    expect(readSessionCookie('ivory_session=a%20b', 'ivory_session')).toBeUndefined();
    expect(readSessionCookie(`ivory_session=${'a'.repeat(257)}`, 'ivory_session')).toBeUndefined();
  });
});

describe('sessionCookieSettings', () => {
  it('the name is BRAND lower-cased; the origin is PUBLIC_URL\'s', () => {
    expect(sessionCookieSettings('AcmePay', 'https://pay.example.com:8443/base')).toEqual({
      name: 'acmepay_session',
      secure: true,
      origin: 'https://pay.example.com:8443',
    });
  });

  it('Secure except on plain http to a loopback name', () => {
    expect(sessionCookieSettings('Ivory', 'http://localhost:8080').secure).toBe(false);
    expect(sessionCookieSettings('Ivory', 'http://127.0.0.1').secure).toBe(false);
    expect(sessionCookieSettings('Ivory', 'http://[::1]:8080').secure).toBe(false);
    expect(sessionCookieSettings('Ivory', 'https://localhost').secure).toBe(true);
    expect(sessionCookieSettings('Ivory', 'http://ivory.test').secure).toBe(true);
  });
});
