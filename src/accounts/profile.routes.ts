import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { SESSION_ONLY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { getProfile } from './get-profile.js';
import { listIdentities } from './list-identities.js';
import { LANGUAGES, MAX_DISPLAY_NAME_LENGTH, THEMES } from './profile.js';
import { unlinkIdentity } from './unlink-identity.js';
import { changeProfile } from './update-profile.js';

const Preferences = Type.Object({
  theme: Type.Union([Type.Literal('dark'), Type.Literal('light'), Type.Literal('system')]),
  language: Type.Union([Type.Literal('en'), Type.Literal('ru')]),
});

const ProfileSchema = Type.Object({
  display_name: Type.String(),
  preferences: Preferences,
  avatar_url: Type.String({ description: 'Empty, or an inline PNG data URL.' }),
  created_at: Type.String({ format: 'date-time' }),
});

// Values are checked by the use case (invalid_profile), so the whole refusal
// has one code; the schema still names them for the document.
const ProfilePatch = Type.Object(
  {
    display_name: Type.Optional(Type.String({ description: `Trimmed; at most ${MAX_DISPLAY_NAME_LENGTH} characters, no control characters; empty clears it.` })),
    preferences: Type.Optional(
      Type.Object(
        {
          theme: Type.Optional(Type.String({ description: THEMES.join(', ') })),
          language: Type.Optional(Type.String({ description: LANGUAGES.join(', ') })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const IdentitySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  provider: Type.String({ description: 'wallet, email or google' }),
  label: Type.String(),
});

const IdentityParams = Type.Object({ id: Type.String() });

/** SPEC "Account": profile and identities. Session only (SPEC "Authentication" 4); PATCH needs no Idempotency-Key (7). */
export async function profileRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  api.get('/profile', { schema: { response: { 200: ProfileSchema } }, config: { auth: SESSION_ONLY } }, async (request) =>
    getProfile(context.db, userOf(request)),
  );

  api.patch(
    '/profile',
    {
      schema: { body: ProfilePatch, response: { 200: ProfileSchema } },
      config: { auth: SESSION_ONLY, fieldErrors: { display_name: 'invalid_profile', preferences: 'invalid_profile' } },
    },
    async (request) => {
      const { display_name: displayName, preferences } = request.body;
      return changeProfile(context.db, userOf(request), {
        ...(displayName === undefined ? {} : { displayName }),
        ...(preferences?.theme === undefined ? {} : { theme: preferences.theme }),
        ...(preferences?.language === undefined ? {} : { language: preferences.language }),
      });
    },
  );

  api.get('/identities', { schema: { response: { 200: Type.Array(IdentitySchema) } }, config: { auth: SESSION_ONLY } }, async (request) =>
    listIdentities(context.db, userOf(request)),
  );

  api.delete(
    '/identities/:id',
    // SPEC "Errors": an unknown identity is 400 not_found here.
    { schema: { params: IdentityParams, response: { 200: Type.Object({ ok: Type.Literal(true) }) } }, config: { auth: SESSION_ONLY, notFoundStatus: 400 } },
    async (request) => {
      await unlinkIdentity(context.db, userOf(request), request.params.id);
      return { ok: true as const };
    },
  );
}

function userOf(request: FastifyRequest): string {
  const principal = principalOf(request);
  if (principal.kind !== 'session') throw new IvoryError('forbidden');
  return principal.userId;
}
