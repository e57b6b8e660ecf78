import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { SESSION_ONLY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { getProfile } from './get-profile.js';
import { listIdentities } from './list-identities.js';
import { AVATAR_BODY_LIMIT, AVATAR_OUTPUT_SIDE, MAX_AVATAR_INPUT_SIDE } from './avatar.js';
import { LANGUAGES, MAX_DISPLAY_NAME_LENGTH, THEMES } from './profile.js';
import { setAvatar } from './set-avatar.js';
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

// Any string reaches the use case, so every bad image is invalid_image or
// image_too_large (SPEC), not a schema error.
const AvatarBody = Type.Object(
  {
    image_base64: Type.String({
      description: `Standard padded base64 of a PNG or JPEG of at most ${MAX_AVATAR_INPUT_SIDE}x${MAX_AVATAR_INPUT_SIDE} px.`,
    }),
  },
  { additionalProperties: false },
);

const AvatarAnswer = Type.Object({
  avatar_url: Type.String({ description: `data:image/png;base64,… of the image normalised to at most ${AVATAR_OUTPUT_SIDE}x${AVATAR_OUTPUT_SIDE} px.` }),
});

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

  api.post(
    '/profile/avatar',
    {
      // Only this route takes bodies the size of a photo (the default limit stays 1 MB); larger ones are 413.
      bodyLimit: AVATAR_BODY_LIMIT,
      schema: { body: AvatarBody, response: { 200: AvatarAnswer } },
      config: { auth: SESSION_ONLY, fieldErrors: { image_base64: 'invalid_image' } },
    },
    async (request) => setAvatar(context.db, userOf(request), request.body.image_base64),
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
