import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { PUBLIC } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { originAllowed, setSessionCookie } from '../platform/http/session-cookie.js';
import { SessionAnswerSchema } from './session-user.schema.js';
import { startEmailSignIn } from './start-email-sign-in.js';
import { verifyEmailSignIn } from './verify-email-sign-in.js';

const StartBody = Type.Object({ email: Type.String({ maxLength: 1024 }) }, { additionalProperties: false });

const StartAnswer = Type.Object({ challenge_id: Type.String({ format: 'uuid' }) });

const VerifyBody = Type.Object(
  {
    challenge_id: Type.String({ description: 'challenge_id from the start answer' }),
    code: Type.String({ description: 'the 6-digit code from the e-mail' }),
    cookie: Type.Optional(
      Type.Boolean({
        description:
          'true: also set the dashboard session cookie (HttpOnly, SameSite=Lax); writes with it need Origin and X-CSRF-Token. Refused with 403 forbidden when an Origin other than the public origin is sent.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** SPEC "Sign-in": the e-mail code ceremony. No Idempotency-Key (SPEC "Authentication" 7: sign-in challenges). */
export async function emailSignInRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const deps = { db: context.db, clock: context.clock, secrets: context.secrets, brand: context.config.brand };

  api.post(
    '/auth/email/start',
    {
      schema: { body: StartBody, response: { 200: StartAnswer } },
      config: { auth: PUBLIC, fieldErrors: { email: 'invalid_email' } },
    },
    async (request, reply) => {
      const started = await startEmailSignIn(deps, { email: request.body.email });
      if (started.kind === 'throttled') {
        void reply.header('Retry-After', String(started.retryAfterSeconds));
        throw new IvoryError('rate_limited');
      }
      return { challenge_id: started.challengeId };
    },
  );

  api.post(
    '/auth/email/verify',
    {
      schema: { body: VerifyBody, response: { 200: SessionAnswerSchema } },
      // Every bad proof, a missing or mistyped field included, is SPEC's 401 (as wallet verify).
      config: { auth: PUBLIC, fieldErrors: { challenge_id: 'unauthorized', code: 'unauthorized' } },
    },
    async (request, reply) => {
      const cookie = request.body.cookie === true;
      // Checked before the code is: a foreign page must not even spend the challenge (decision 0013).
      if (cookie && !originAllowed(request)) throw new IvoryError('forbidden');
      const session = await verifyEmailSignIn(deps, { challengeId: request.body.challenge_id, code: request.body.code });
      if (cookie) setSessionCookie(reply, session);
      return { token: session.token, expires_at: session.expiresAt.toISOString(), csrf: session.csrf, user: session.user };
    },
  );
}
