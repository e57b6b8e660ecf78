import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { finishGoogleSignIn } from './finish-google-sign-in.js';
import { openIdConnectProvider } from './identity-provider.js';
import { SessionUserSchema } from './session-user.schema.js';
import { startGoogleSignIn } from './start-google-sign-in.js';

export const GOOGLE_CALLBACK_PATH = '/auth/google/callback';

// Providers add their own parameters (Google: scope, authuser, prompt, hd), so neither query is closed.
const StartQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: 2048, description: 'a same-origin path (`/…`) to return to after sign-in' })),
});

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  iss: Type.Optional(Type.String()),
});

const Redirect = Type.Null({ description: 'Found: Location is the identity provider authorization endpoint' });

const SessionAnswer = Type.Object({
  token: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
  csrf: Type.String(),
  user: SessionUserSchema,
  return_to: Type.Optional(Type.String({ description: 'the return_to given to GET /auth/google' })),
});

/**
 * SPEC "Sign-in": the identity-provider flow (OpenID Connect; Google unless
 * OIDC_ISSUER names another provider). Without OIDC_CLIENT_ID both routes
 * answer 404 not_found, before their query is read, as if absent (as the
 * operator API without ADMIN_TOKEN). No Idempotency-Key (sign-in ceremony).
 */
export async function googleSignInRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { config } = context;
  const redirectUri = `${config.publicUrl}${API_PREFIX}${GOOGLE_CALLBACK_PATH}`;
  const provider = config.oidc === undefined ? undefined : openIdConnectProvider({ ...config.oidc, redirectUri });
  const configured = async (): Promise<void> => {
    if (provider === undefined) throw new IvoryError('not_found');
  };
  const deps = () => {
    if (provider === undefined) throw new IvoryError('not_found');
    return { db: context.db, clock: context.clock, secrets: context.secrets, provider };
  };

  api.get(
    '/auth/google',
    { schema: { querystring: StartQuery, response: { 302: Redirect } }, config: { auth: PUBLIC }, onRequest: configured },
    async (request, reply) => {
      const authorizationUrl = await startGoogleSignIn(deps(), { returnTo: request.query.return_to });
      void reply.header('Cache-Control', 'no-store');
      return reply.redirect(authorizationUrl.href, 302);
    },
  );

  api.get(
    GOOGLE_CALLBACK_PATH,
    { schema: { querystring: CallbackQuery, response: { 200: SessionAnswer } }, config: { auth: PUBLIC }, onRequest: configured },
    async (request, reply) => {
      // openid-client reads the whole answer (code, state, iss, error) from the URL, as the provider sent it.
      const callbackUrl = new URL(redirectUri);
      const query = request.url.indexOf('?');
      callbackUrl.search = query === -1 ? '' : request.url.slice(query);
      const session = await finishGoogleSignIn(deps(), { callbackUrl, state: request.query.state });
      void reply.header('Cache-Control', 'no-store');
      return {
        token: session.token,
        expires_at: session.expiresAt.toISOString(),
        csrf: session.csrf,
        user: session.user,
        ...(session.returnTo === undefined ? {} : { return_to: session.returnTo }),
      };
    },
  );
}
