import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../crypto.js';
import { IvoryError } from '../errors.js';
import type { SessionPrincipal } from './principal.js';

/**
 * Dashboard cookie sessions (SPEC "Authentication" 2, decision 0013). The
 * cookie carries the same session token as a bearer answer; the HTTP core reads
 * it only when a request has no Authorization header, never as an API key, and
 * a write authenticated by it needs PUBLIC_URL's Origin and the session's
 * X-CSRF-Token.
 */
export interface SessionCookieSettings {
  /** `<brand>_session`, lower-case. */
  readonly name: string;
  /** Off only for a PUBLIC_URL on http://localhost or http://127.0.0.1 (a browser drops Secure cookies over plain http). */
  readonly secure: boolean;
  /** PUBLIC_URL's origin: the only Origin a cookie-authenticated write may carry. */
  readonly origin: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the HTTP core when cookie sessions are on; read by `setSessionCookie` and `clearSessionCookie`. */
    sessionCookie: SessionCookieSettings | null;
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** What a session token looks like (base64url); anything else in the cookie is ignored. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,256}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sessionCookieSettings(brand: string, publicUrl: string): SessionCookieSettings {
  const url = new URL(publicUrl);
  return {
    name: `${brand.toLowerCase()}_session`,
    secure: !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)),
    origin: url.origin,
  };
}

/** The value of cookie `name` in a Cookie header, when it has the shape of a session token. Never throws. */
export function readSessionCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1 || part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    return TOKEN_SHAPE.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * Gives the browser its session as the `<brand>_session` cookie: HttpOnly,
 * SameSite=Lax, Path=/, Secure (except on a loopback http PUBLIC_URL),
 * expiring with the session. For the browser sign-in flows (e-mail verify with
 * `cookie: true`, the identity-provider callback); wallet sign-in never calls it.
 */
export function setSessionCookie(reply: FastifyReply, session: { readonly token: string; readonly expiresAt: Date }): void {
  const settings = settingsOf(reply);
  void reply.header('set-cookie', serialize(settings, session.token, `Expires=${session.expiresAt.toUTCString()}`));
}

/** Tells the browser to forget its session cookie (sign-out). */
export function clearSessionCookie(reply: FastifyReply): void {
  const settings = settingsOf(reply);
  void reply.header('set-cookie', serialize(settings, '', 'Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT'));
}

/** Whether an Origin header, when the request carries one, is PUBLIC_URL's origin. */
export function originAllowed(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin === settingsOf(request).origin;
}

/**
 * SPEC "Authentication" 2: a write (anything but GET, HEAD, OPTIONS)
 * authenticated by the cookie needs an Origin equal to PUBLIC_URL's and an
 * X-CSRF-Token equal to the session's (compared in constant time); otherwise
 * 403 forbidden, before the body is read.
 */
export function enforceCsrf(request: FastifyRequest, session: SessionPrincipal, settings: SessionCookieSettings): void {
  if (SAFE_METHODS.has(request.method)) return;
  const token = request.headers['x-csrf-token'];
  if (request.headers.origin !== settings.origin || typeof token !== 'string' || !constantTimeEqual(token, session.csrfToken)) {
    throw new IvoryError('forbidden');
  }
}

function serialize(settings: SessionCookieSettings, value: string, expiry: string): string {
  return `${settings.name}=${value}; ${expiry}; Path=/; HttpOnly; SameSite=Lax${settings.secure ? '; Secure' : ''}`;
}

function settingsOf(carrier: FastifyReply | FastifyRequest): SessionCookieSettings {
  const settings = carrier.server.sessionCookie;
  if (settings === null) throw new Error('session cookies are not configured in this HTTP core');
  return settings;
}
