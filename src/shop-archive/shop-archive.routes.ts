import { Type } from 'typebox';
import { ShopRecordSchema } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { replyIdempotent } from '../platform/http/idempotency.js';
import { SESSION_FRESH_MFA } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { archiveShop } from './archive-shop.js';

const ShopParams = Type.Object({ shop_id: Type.String() });

/** Decision 0038: archiving a shop, an operation SPEC names only by its error (`shop_archived`). */
export async function shopArchiveRoutes(api: IvoryServer, context: { readonly db: Db; readonly clock: Clock }): Promise<void> {
  const { db, clock } = context;
  api.post(
    '/shops/:shop_id/archive',
    { schema: { params: ShopParams, response: { 200: ShopRecordSchema } }, config: { auth: SESSION_FRESH_MFA, idempotent: true } },
    async (request, reply) =>
      replyIdempotent(db, request, reply, async (trx, principal) => ({ status: 200, body: await archiveShop(trx, clock, principal, request.params.shop_id) })),
  );
}
