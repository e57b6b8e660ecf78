import { Type } from 'typebox';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import type { Db } from '../platform/database/database.js';
import { replyIdempotent, type AnswerSealer } from '../platform/http/idempotency.js';
import { SESSION_FRESH_MFA, SESSION_ONLY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { createApiKey } from './create-api-key.js';
import { listApiKeys } from './list-api-keys.js';
import { revokeApiKey } from './revoke-api-key.js';
import { updateApiKey } from './update-api-key.js';

const ShopParams = Type.Object({ shop_id: Type.String() });
const KeyParams = Type.Object({ shop_id: Type.String(), key_id: Type.String() });

const CreateKeyBody = Type.Object(
  { name: Type.String(), scopes: Type.Array(Type.String()), allowed_ips: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);
const UpdateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean()),
    scopes: Type.Optional(Type.Array(Type.String())),
    allowed_ips: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

const KEY_FIELD_ERRORS = { name: 'invalid_name', scopes: 'invalid_scopes', allowed_ips: 'invalid_allowed_ips' } as const;

/**
 * SPEC "API keys": every route is session-only (a key can never manage keys,
 * SPEC "Authentication" 3–4); reading them needs a developer, creating,
 * changing and revoking an owner (decision 0016).
 *
 * Takes only the parts of the app context it uses: `AppContext` names this
 * module, and importing it back would be a (type-only) import cycle.
 */
export async function keysRoutes(api: IvoryServer, context: { readonly db: Db; readonly clock: Clock; readonly secrets: SecretBox }): Promise<void> {
  const { db, clock, secrets } = context;

  api.get('/shops/:shop_id/keys', { schema: { params: ShopParams }, config: { auth: SESSION_ONLY } }, async (request) =>
    listApiKeys(db, principalOf(request), request.params.shop_id),
  );

  api.post(
    '/shops/:shop_id/keys',
    { schema: { params: ShopParams, body: CreateKeyBody }, config: { auth: SESSION_FRESH_MFA, idempotent: true, fieldErrors: KEY_FIELD_ERRORS } },
    async (request, reply) => {
      const { name, scopes, allowed_ips: allowedIps } = request.body;
      // The stored answer is replayed for a retried request, so it holds the
      // token too: its bytes are sealed with SECRET_KEY, so that the database
      // never holds a usable key in clear (keys themselves are stored only as hashes).
      return replyIdempotent(
        db,
        request,
        reply,
        async (trx, principal) => ({ status: 201, body: await createApiKey(trx, clock, principal, request.params.shop_id, { name, scopes, allowedIps }) }),
        { sealWith: secrets, legacyBody: (stored) => openLegacyToken(stored, secrets) },
      );
    },
  );

  api.patch(
    '/shops/:shop_id/keys/:key_id',
    { schema: { params: KeyParams, body: UpdateKeyBody }, config: { auth: SESSION_FRESH_MFA, idempotent: true, fieldErrors: KEY_FIELD_ERRORS } },
    async (request, reply) => {
      const { name, enabled, scopes, allowed_ips: allowedIps } = request.body;
      return replyIdempotent(db, request, reply, async (trx, principal) => ({
        status: 200,
        body: await updateApiKey(trx, clock, principal, request.params.shop_id, request.params.key_id, { name, enabled, scopes, allowedIps }),
      }));
    },
  );

  api.delete(
    '/shops/:shop_id/keys/:key_id',
    { schema: { params: KeyParams }, config: { auth: SESSION_FRESH_MFA, idempotent: true } },
    async (request, reply) =>
      replyIdempotent(db, request, reply, async (trx, principal) => {
        await revokeApiKey(trx, clock, principal, request.params.shop_id, request.params.key_id);
        return { status: 200, body: { ok: true } };
      }),
  );
}

/** A key-creation answer stored before decision 0019: JSON with the token sealed as a field. */
function openLegacyToken(stored: unknown, secrets: AnswerSealer): unknown {
  const body = stored as { token: string };
  return { ...body, token: secrets.open(body.token) };
}
