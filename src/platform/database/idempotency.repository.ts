import type { Tx } from './database.js';

/** SQL for `idempotency_records` (SPEC "Authentication" 7; decision 0001). */

export interface IdempotencyKey {
  readonly scope: string;
  readonly key: string;
}

/**
 * Claims the key as the transaction's first statement; false when another
 * request holds it (then the caller waits on the unique index for its commit).
 */
export async function claimIdempotencyKey(trx: Tx, id: IdempotencyKey, requestHash: string): Promise<boolean> {
  const claimed = await trx
    .insertInto('idempotency_records')
    .values({ scope: id.scope, key: id.key, request_hash: requestHash, response_status: 0, response_body: 'null' })
    .onConflict((conflict) => conflict.columns(['scope', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

export interface StoredIdempotentResponse {
  readonly requestHash: string;
  /** 0 while the claiming request has not stored its answer. */
  readonly status: number;
  /** The stored body, parsed from JSON. */
  readonly body: unknown;
}

export async function findIdempotentResponse(trx: Tx, id: IdempotencyKey): Promise<StoredIdempotentResponse> {
  const row = await trx
    .selectFrom('idempotency_records')
    .select(['request_hash', 'response_status', 'response_body'])
    .where('scope', '=', id.scope)
    .where('key', '=', id.key)
    .executeTakeFirstOrThrow();
  return { requestHash: row.request_hash, status: row.response_status, body: row.response_body };
}

export async function storeIdempotentResponse(trx: Tx, id: IdempotencyKey, status: number, body: unknown): Promise<void> {
  await trx
    .updateTable('idempotency_records')
    .set({ response_status: status, response_body: JSON.stringify(body) })
    .where('scope', '=', id.scope)
    .where('key', '=', id.key)
    .execute();
}
