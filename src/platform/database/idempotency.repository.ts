import type { InsertQueryBuilder, InsertResult, QueryCreator } from 'kysely';
import type { Executor, Tx } from './database.js';
import { isUniqueViolation } from './retry.js';
import type { Database } from './schema.js';

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
  /** The bytes that were sent (sealed when `sealed`); null on rows stored before they were kept. */
  readonly bytes: Buffer | null;
  readonly contentType: string | null;
  readonly sealed: boolean;
  /** The parsed JSON body of a row stored before the bytes were kept (decision 0019). */
  readonly legacyBody: unknown;
}

/** Undefined when no request with the key has committed. */
export async function findIdempotentResponse(trx: Executor, id: IdempotencyKey): Promise<StoredIdempotentResponse | undefined> {
  const row = await trx
    .selectFrom('idempotency_records')
    .select(['request_hash', 'response_status', 'response_body', 'response_bytes', 'response_content_type', 'response_sealed'])
    .where('scope', '=', id.scope)
    .where('key', '=', id.key)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    requestHash: row.request_hash,
    status: row.response_status,
    // PGlite hands back a plain Uint8Array, pg a Buffer: one type for callers.
    bytes: row.response_bytes === null ? null : Buffer.from(row.response_bytes.buffer, row.response_bytes.byteOffset, row.response_bytes.byteLength),
    contentType: row.response_content_type,
    sealed: row.response_sealed,
    legacyBody: row.response_body,
  };
}

export interface IdempotentAnswerBytes {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Buffer;
  readonly sealed: boolean;
}

export async function storeIdempotentResponse(trx: Tx, id: IdempotencyKey, answer: IdempotentAnswerBytes): Promise<void> {
  await trx
    .updateTable('idempotency_records')
    .set({ response_status: answer.status, response_bytes: answer.bytes, response_content_type: answer.contentType, response_sealed: answer.sealed })
    .where('scope', '=', id.scope)
    .where('key', '=', id.key)
    .execute();
}

/** A finished request's record, answer included: plain values, so a statement can be compiled once for it. */
export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Buffer;
  readonly sealed: boolean;
}

/**
 * The INSERT of a finished request's record, which the use case runs inside
 * its own last statement (`runIdempotentClaimingLast`). No ON CONFLICT: a taken
 * key fails the statement with a unique violation (`isIdempotencyKeyTaken`),
 * after waiting for a request still holding it to end. Each value is passed
 * through as it is (`compiledTemplate` relies on it).
 */
export function insertIdempotencyRecord(executor: QueryCreator<Database>, record: IdempotencyRecord): InsertQueryBuilder<Database, 'idempotency_records', InsertResult> {
  return executor.insertInto('idempotency_records').values({
    scope: record.scope,
    key: record.key,
    request_hash: record.requestHash,
    response_status: record.status,
    response_body: 'null',
    response_bytes: record.bytes,
    response_content_type: record.contentType,
    response_sealed: record.sealed,
  });
}

export function isIdempotencyKeyTaken(error: unknown): boolean {
  return isUniqueViolation(error, 'idempotency_records_pkey');
}
