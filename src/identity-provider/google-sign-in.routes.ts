import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { readSessionCookie, setSessionCookie } from '../platform/http/session-cookie.js';
import { finishGoogleSignIn } from './finish-google-sign-in.js';
import { openIdConnectProvider } from './identity-provider.js';
import { SessionAnswerSchema } from '../accounts/index.js';
import { OIDC_STATE_LIFETIME_MS, startGoogleSignIn } from './start-google-sign-in.js';

const START_PATH = '/auth/google';
const CALLBACK_PATH = '/auth/google/callback';

// Providers add their own parameters (Google: scope, authuser, prompt, hd), so neither query is closed.
const StartQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: 2048, description: 'a same-origin path (`/…`) to send the browser to after sign-in' })),
});

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  iss: Type.Optional(Type.String()),
});

const ToProvider = Type.Null({ description: 'Found: Location is the identity provider authorization endpoint; sets the state cookie' });
const ToReturnTo = Type.Null({ description: 'Found (when return_to was given): Location is return_to; sets the session cookie' });

/**
 * SPEC "Sign-in": the identity-provider flow (OpenID Connect; Google unless
 * OIDC_ISSUER names another provider), a browser flow, so success sets the
 * dashboard session cookie (decision 0013) and then redirects to `return_to`,
 * or, without one, answers SPEC's session answer. Without OIDC_CLIENT_ID
 * both routes answer 404 not_found before their query is read, as if absent
 * (as the operator API without ADMIN_TOKEN). No Idempotency-Key (sign-in).
 * Decision 0014.
 */
export async function googleSignInRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { config } = context;
  const redirectUri = `${config.publicUrl}${API_PREFIX}${CALLBACK_PATH}`;
  const provider = config.oidc === undefined ? undefined : openIdConnectProvider({ ...config.oidc, redirectUri, log: context.log });
  // The state also travels in this cookie, scoped to these two routes, so that only the browser that started can finish.
  const stateCookie = `${config.brand.toLowerCase()}_oidc_state`;
  const configured = async (): Promise<void> => {
    if (provider === undefined) throw new IvoryError('not_found');
  };
  const deps = () => {
    if (provider === undefined) throw new IvoryError('not_found');
    return { db: context.db, clock: context.clock, secrets: context.secrets, provider };
  };

  api.get(
    START_PATH,
    { schema: { querystring: StartQuery, response: { 302: ToProvider } }, config: { auth: PUBLIC }, onRequest: configured },
    async (request, reply) => {
      const started = await startGoogleSignIn(deps(), { returnTo: request.query.return_to });
      setStateCookie(reply, stateCookie, started.state, OIDC_STATE_LIFETIME_MS / 1000);
      void reply.header('Cache-Control', 'no-store');
      return reply.redirect(started.authorizationUrl.href, 302);
    },
  );

  api.get(
    CALLBACK_PATH,
    {
      schema: { querystring: CallbackQuery, response: { 200: SessionAnswerSchema, 302: ToReturnTo } },
      config: { auth: PUBLIC },
      onRequest: configured,
    },
    async (request, reply) => {
      // openid-client reads the whole answer (code, state, iss, error) from the URL, as the provider sent it.
      const callbackUrl = new URL(redirectUri);
      const query = request.url.indexOf('?');
      callbackUrl.search = query === -1 ? '' : request.url.slice(query);
      const browserState = readSessionCookie(request.headers.cookie, stateCookie);
      const session = await finishGoogleSignIn(deps(), { callbackUrl, state: request.query.state, browserState });
      setStateCookie(reply, stateCookie, '', 0);
      setSessionCookie(reply, session);
      void reply.header('Cache-Control', 'no-store');
      if (session.returnTo !== undefined) return reply.redirect(`${config.publicUrl}${session.returnTo}`, 302);
      return { token: session.token, expires_at: session.expiresAt.toISOString(), csrf: session.csrf, user: session.user };
    },
  );
}

function setStateCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  const secure = reply.server.sessionCookie?.secure ?? true;
  const cookie = `${name}=${value}; Max-Age=${maxAgeSeconds}; Path=${API_PREFIX}${START_PATH}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  void reply.header('set-cookie', cookie);
}
