import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { replyShopIdempotent } from '../merchants/index.js';
import { SESSION_FRESH_MFA, SESSION_OR_WRITE_KEY } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { resetSandbox } from './reset-sandbox.js';
import { simulateSandboxEvent } from './simulate-sandbox-event.js';

const ShopParams = Type.Object({ shop_id: Type.String() });

const SimulateBody = Type.Object(
  {
    issuance_id: Type.String(),
    // Any text here: an unknown kind is the use case's `invalid_simulation`, not the
    // validator's invalid_request. The document states the five (src/openapi/operations.ts).
    kind: Type.String(),
    amount: Type.String(),
    reference_event_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** SPEC "Sandbox". */
export async function sandboxRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { db, clock, ledger } = context;

  api.post(
    '/shops/:shop_id/sandbox/simulate',
    { schema: { params: ShopParams, body: SimulateBody }, config: { auth: SESSION_OR_WRITE_KEY, idempotent: true } },
    async (request, reply) =>
      replyShopIdempotent(db, request, reply, 'write', async (trx, access) => ({ status: 200, body: await simulateSandboxEvent(trx, { now: clock.now(), ledger }, { id: access.shopId, sandbox: access.shop.sandbox }, request.body) })),
  );

  api.post(
    '/shops/:shop_id/sandbox/reset',
    { schema: { params: ShopParams }, config: { auth: SESSION_FRESH_MFA, idempotent: true } },
    async (request, reply) =>
      replyShopIdempotent(db, request, reply, 'owner', async (trx, access) => ({ status: 200, body: await resetSandbox(trx, access.shop) })),
  );
}
