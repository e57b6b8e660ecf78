import type { FastifyRequest } from 'fastify';
import type { Scope } from '../database/schema.js';
import { IvoryError } from '../errors.js';

/** Who is asking, resolved once per request by the auth layer. */
export type Principal = SessionPrincipal | ApiKeyPrincipal;

export interface SessionPrincipal {
  readonly kind: 'session';
  readonly sessionId: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  /** When this session last passed the second factor (TOTP verify, recovery code). */
  readonly mfaAt: Date | null;
  /** The user has a confirmed second factor (SPEC "Authentication" 6); absent means none. */
  readonly mfaEnrolled?: boolean;
}

export interface ApiKeyPrincipal {
  readonly kind: 'api_key';
  readonly keyId: string;
  readonly shopId: string;
  readonly merchantId: string;
  readonly scopes: readonly Scope[];
}

/**
 * Turns a bearer token into a principal, or null when the token is unknown,
 * expired, revoked, disabled or used from outside the key's allowlist. May
 * throw `IvoryError('account_disabled')` for a blocked user. A token `from`
 * the session cookie resolves to a session or null, never to an API key.
 */
export type PrincipalResolver = (token: string, clientIp: string, from: CredentialSource) => Promise<Principal | null>;

/** Where the request's credential came from: the Authorization header, or the dashboard session cookie. */
export type CredentialSource = 'bearer' | 'cookie';

/**
 * What a route accepts (SPEC "Endpoints", Auth column). `session`: a session
 * may call it. `key`: an API key may, with that exact scope (`any` for no
 * particular scope); absent means session-only. `mfa` (sessions of users with
 * a second factor only; decision 0012): absent, the session must have passed
 * the factor; `exempt`, it need not (sign-in ceremony, /me); `fresh`, it must
 * have passed it within the configured window (sensitive changes).
 */
export type AuthRequirement =
  | 'none'
  | { readonly session: boolean; readonly key?: Scope | 'any'; readonly mfa?: 'exempt' | 'fresh' };

export const PUBLIC: AuthRequirement = 'none';
export const SESSION_ONLY: AuthRequirement = { session: true };
export const SESSION_OR_KEY: AuthRequirement = { session: true, key: 'any' };
export const SESSION_OR_READ_KEY: AuthRequirement = { session: true, key: 'read' };
export const SESSION_OR_WRITE_KEY: AuthRequirement = { session: true, key: 'write' };
/** Session routes of the MFA ceremony itself, reachable before the second factor. */
export const SESSION_MFA_EXEMPT: AuthRequirement = { session: true, mfa: 'exempt' };
/** Sensitive changes: a session whose second factor was passed within the window. */
export const SESSION_FRESH_MFA: AuthRequirement = { session: true, mfa: 'fresh' };

/**
 * Whether a session meets a route's MFA requirement at `now` (SPEC
 * "Authentication" 6). A user without a second factor always does.
 */
export function meetsMfaRequirement(
  session: Pick<SessionPrincipal, 'mfaAt' | 'mfaEnrolled'>,
  requirement: 'completed' | 'exempt' | 'fresh',
  now: Date,
  freshWindowMs: number,
): boolean {
  if (session.mfaEnrolled !== true || requirement === 'exempt') return true;
  if (session.mfaAt === null) return false;
  return requirement === 'completed' || now.getTime() - session.mfaAt.getTime() <= freshWindowMs;
}

/** A stable bucket name for per-principal counters (rate limits, idempotency scope). */
export function principalBucket(principal: Principal): string {
  return principal.kind === 'session' ? `user:${principal.userId}` : `key:${principal.keyId}`;
}

/**
 * The request's principal on a route that requires one: the auth layer has
 * enforced the route's requirement, so this only narrows the type.
 */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new IvoryError('unauthorized');
  return request.principal;
}
