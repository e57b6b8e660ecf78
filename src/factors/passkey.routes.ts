import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { SESSION_FRESH_MFA, SESSION_MFA_EXEMPT, SESSION_ONLY, type SessionPrincipal, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { beginPasskeyCeremony } from './begin-passkey-ceremony.js';
import { finishPasskeyCeremony } from './finish-passkey-ceremony.js';
import { MAX_PASSKEY_NAME_LENGTH } from './passkeys.js';
import { removePasskey } from './remove-passkey.js';
import { renamePasskey } from './rename-passkey.js';
import { SessionUserSchema } from '../accounts/index.js';

const PasskeySchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Ivory id of the passkey (not the WebAuthn credential id)' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

const NAME_RULE = `Trimmed; 1 to ${MAX_PASSKEY_NAME_LENGTH} characters, no control characters.`;
const NameField = Type.String({ maxLength: 1000, description: NAME_RULE });

const BeginBody = Type.Object(
  {
    purpose: Type.Union([Type.Literal('register'), Type.Literal('authenticate')], {
      description: '`register`: add a passkey; `authenticate`: pass the second factor (or a fresh confirmation) with one',
    }),
    name: Type.Optional(Type.String({ maxLength: 1000, description: `Only with register; default "Passkey". ${NAME_RULE}` })),
  },
  { additionalProperties: false },
);

const BeginAnswer = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the ceremony: finish it at /auth/passkeys/finish/{id}, once, before expires_at' }),
  purpose: Type.Union([Type.Literal('register'), Type.Literal('authenticate')]),
  expires_at: Type.String({ format: 'date-time' }),
  options: Type.Object(
    { challenge: Type.String({ description: 'base64url' }) },
    {
      additionalProperties: true,
      description:
        'WebAuthn options JSON for navigator.credentials.create (register: PublicKeyCredentialCreationOptionsJSON) or .get (authenticate: PublicKeyCredentialRequestOptionsJSON, allowCredentials = the user\'s passkeys)',
    },
  ),
});

// The WebAuthn credential JSON (PublicKeyCredential.toJSON()) as browsers and
// @simplewebauthn/browser produce it; its inner fields grow with the standard,
// so only the outer body is closed. Everything inside is checked by the library.
const CredentialJson = Type.Object(
  {
    id: Type.String({ description: 'credential id, base64url' }),
    rawId: Type.String({ description: 'credential id, base64url' }),
    type: Type.String({ description: 'public-key' }),
    response: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'register: {clientDataJSON, attestationObject, transports?}; authenticate: {clientDataJSON, authenticatorData, signature, userHandle?} — base64url strings',
      },
    ),
    clientExtensionResults: Type.Optional(Type.Object({}, { additionalProperties: true })),
    authenticatorAttachment: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const FinishBody = Type.Object({ response: CredentialJson }, { additionalProperties: false });

const FinishAnswer = Type.Object({
  passkey: { ...PasskeySchema, description: 'the passkey registered, or the one that authenticated' },
  user: SessionUserSchema,
});

const CeremonyParams = Type.Object({ id: Type.String({ description: 'the id answered by begin' }) });
const PasskeyParams = Type.Object({ id: Type.String({ description: 'a passkey id of the security summary' }) });
const RenameBody = Type.Object({ name: NameField }, { additionalProperties: false });

/**
 * SPEC "Sign-in" passkeys (issue 10, item 5). Session only (API keys are
 * refused: SPEC "Authentication" 3 and 4); sign-in ceremony, so no
 * Idempotency-Key. begin and finish are reachable before the second factor
 * (authenticating is how it is passed); registering, when the user already
 * has a factor, needs a fresh confirmation, checked by the use case since the
 * purpose is in the body. Removing a passkey is a factor change (fresh).
 */
export async function passkeyRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const mfaFreshWindowMs = context.config.mfaFreshMinutes * 60 * 1000;
  const publicUrl = context.config.publicUrl;

  api.post(
    '/auth/passkeys/begin',
    {
      schema: { body: BeginBody, response: { 200: BeginAnswer } },
      config: { auth: SESSION_MFA_EXEMPT, fieldErrors: { purpose: 'invalid_request', name: 'invalid_name' } },
    },
    async (request) => {
      const { purpose, name } = request.body;
      const begun = await beginPasskeyCeremony(
        { db: context.db, clock: context.clock, publicUrl, brand: context.config.brand, mfaFreshWindowMs },
        { session: sessionOf(request), purpose, ...(name === undefined ? {} : { name }) },
      );
      return { id: begun.id, purpose, expires_at: begun.expiresAt.toISOString(), options: begun.options };
    },
  );

  api.post(
    '/auth/passkeys/finish/:id',
    {
      schema: { params: CeremonyParams, body: FinishBody, response: { 200: FinishAnswer } },
      config: { auth: SESSION_MFA_EXEMPT, fieldErrors: { response: 'invalid_passkey' } },
    },
    async (request) =>
      finishPasskeyCeremony(
        { db: context.db, clock: context.clock, publicUrl },
        { session: sessionOf(request), ceremonyId: request.params.id, response: request.body.response },
      ),
  );

  api.patch(
    '/auth/passkeys/:id',
    {
      schema: { params: PasskeyParams, body: RenameBody, response: { 200: PasskeySchema } },
      config: { auth: SESSION_ONLY, fieldErrors: { name: 'invalid_name' } },
    },
    async (request) => renamePasskey(context.db, sessionOf(request).userId, { passkeyId: request.params.id, name: request.body.name }),
  );

  api.delete(
    '/auth/passkeys/:id',
    { schema: { params: PasskeyParams, response: { 200: Type.Object({ ok: Type.Literal(true) }) } }, config: { auth: SESSION_FRESH_MFA } },
    async (request) => {
      await removePasskey(context.db, sessionOf(request).userId, request.params.id);
      return { ok: true as const };
    },
  );
}

function sessionOf(request: FastifyRequest): SessionPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'session') throw new IvoryError('forbidden');
  return principal;
}
