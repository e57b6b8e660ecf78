import type { FastifyRequest } from 'fastify';
import { findUser, resolvePrincipal, sessionUserView } from '../accounts/index.js';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { readSessionCookie, sessionCookieSettings } from '../platform/http/session-cookie.js';

/** What a screen needs to know of the person's cookie session before it renders. */
export interface DashboardSession {
  readonly csrf: string;
  readonly onboardingRequired: boolean;
  /** The user has a second factor this session has not passed yet (decision 0012). */
  readonly factorPending: boolean;
  /** Who the cookie names, as the API's own resolver gives it: what server-side figures are read as. */
  readonly principal: Principal;
}

/**
 * Reads the session cookie the way the API does (the same resolver), so a
 * screen and the calls its script makes agree on who is signed in. A blocked
 * account, an expired or unknown token: no session (the sign-in screen).
 */
export function dashboardSessionReader(context: AppContext): (request: FastifyRequest) => Promise<DashboardSession | undefined> {
  const resolve = resolvePrincipal(context);
  const cookieName = sessionCookieSettings(context.config.brand, context.config.publicUrl).name;
  return async (request) => {
    const token = readSessionCookie(request.headers.cookie, cookieName);
    if (token === undefined) return undefined;
    try {
      const principal = await resolve(token, request.ip, 'cookie');
      if (principal === null || principal.kind !== 'session') return undefined;
      const user = await findUser(context.db, principal.userId);
      if (user === undefined) return undefined;
      const view = sessionUserView(user, principal.mfaAt);
      return { csrf: principal.csrfToken, onboardingRequired: view.onboarding_required, factorPending: view.mfa_required, principal };
    } catch (error) {
      if (error instanceof IvoryError && error.code === 'account_disabled') return undefined;
      throw error;
    }
  };
}
