import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../crypto.js';
import { inTransaction, type Db, type Tx } from '../database/database.js';
import { claimIdempotencyKey, findIdempotentResponse, storeIdempotentResponse } from '../database/idempotency.repository.js';
import { IvoryError } from '../errors.js';
import { principalBucket, principalOf, type Principal } from './principal.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_BYTES = 128;

export interface StoredResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  /** True when this is the stored answer to an earlier request with the same key. */
  readonly replayed?: boolean;
}

/** SPEC "Authentication" 7: non-empty, at most 128 bytes, else `idempotency_key_required`. */
export function readIdempotencyKey(request: FastifyRequest): string {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value, 'utf8') > MAX_KEY_BYTES) {
    throw new IvoryError('idempotency_key_required');
  }
  return value;
}

/**
 * Runs a mutation once per (principal, Idempotency-Key). The record of the key
 * and the effect commit in one transaction, so a crash leaves neither. A
 * concurrent request with the same key waits on the record's unique index until
 * the first commits and then gets its stored answer (or, on a different body,
 * `idempotency_conflict`). Failures roll back the record too: errors are never
 * stored, so a corrected or retried request can still succeed.
 *
 * A replayed body is the JSON of the `T` an earlier request stored under the
 * same key and fingerprint (same route, same body), so it is typed as `T`:
 * what JSON keeps of it (a route's response schema serialises either the same way).
 */
export async function runIdempotent<T>(
  db: Db,
  request: FastifyRequest,
  work: (trx: Tx) => Promise<StoredResponse<T>>,
): Promise<StoredResponse<T>> {
  const principal = request.principal;
  if (principal === null) throw new IvoryError('unauthorized');
  const id = { scope: principalBucket(principal), key: readIdempotencyKey(request) };
  const requestHash = fingerprint(request);

  return inTransaction(db, async (trx) => {
    if (!(await claimIdempotencyKey(trx, id, requestHash))) {
      const existing = await findIdempotentResponse(trx, id);
      if (existing.requestHash !== requestHash || existing.status === 0) throw new IvoryError('idempotency_conflict');
      return { status: existing.status, body: existing.body as T, replayed: true };
    }
    const result = await work(trx);
    await storeIdempotentResponse(trx, id, result.status, result.body);
    return result;
  });
}

/**
 * The shape of every idempotent route (STYLE "Habits" 3): the principal the
 * auth layer let through, the use case once per Idempotency-Key, the reply.
 */
export async function replyIdempotent<T>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Tx, principal: Principal) => Promise<StoredResponse<T>>,
): Promise<FastifyReply> {
  const principal = principalOf(request);
  const result = await runIdempotent(db, request, (trx) => work(trx, principal));
  return reply.status(result.status).send(result.body);
}

/**
 * What makes two requests "the same": method, path (after the `/projects`
 * alias is rewritten to `/shops`, so both share one scope) and the body as
 * JSON with sorted keys, so that whitespace and key order do not matter.
 */
function fingerprint(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? '';
  return sha256Hex(`${request.method} ${path}\n${canonicalJson(request.body ?? null)}`);
}

/** Deeper bodies are refused: no request of the API nests anywhere near this. */
const MAX_JSON_DEPTH = 64;

export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_JSON_DEPTH) throw new IvoryError('invalid_json');
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
