import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Tx } from '../platform/database/database.js';
import { replyIdempotent, type StoredResponse } from '../platform/http/idempotency.js';
import { requireShopAccess, type AccessNeed } from './require-shop-access.js';
import type { ShopAccess } from './shop-access.js';

/**
 * An idempotent write on the shop of the route's `:shop_id`: inside the
 * idempotent transaction, the principal's access to that shop (`need`), then
 * the work with it, then the reply.
 */
export async function replyShopIdempotent<T>(
  db: Db,
  request: FastifyRequest & { readonly params: { readonly shop_id: string } },
  reply: FastifyReply,
  need: AccessNeed,
  work: (trx: Tx, access: ShopAccess) => Promise<StoredResponse<T>>,
): Promise<FastifyReply> {
  return replyIdempotent(db, request, reply, async (trx, principal) => work(trx, await requireShopAccess(trx, principal, request.params.shop_id, need)));
}
