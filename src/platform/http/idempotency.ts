import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../crypto.js';
import { inTransaction, type Db, type Tx } from '../database/database.js';
import { isRetryableTransactionError } from '../database/retry.js';
import {
  claimIdempotencyKey,
  findIdempotentResponse,
  isIdempotencyKeyTaken,
  storeIdempotentResponse,
  type IdempotencyRecord,
  type StoredIdempotentResponse,
} from '../database/idempotency.repository.js';
import { IvoryError, fieldError } from '../errors.js';
import { principalBucket, principalOf, type Principal } from './principal.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_BYTES = 128;

/** What an idempotent use case answers: a status and a body the route's serializer turns into JSON. */
export interface StoredResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** Seals and opens a stored answer that shows a secret (SecretBox fits). */
export interface AnswerSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export interface IdempotentOptions {
  /**
   * The answer shows a secret (a new API key token, a webhook signing secret):
   * its bytes are kept sealed at rest and opened on replay.
   */
  readonly sealWith?: AnswerSealer;
  /**
   * How a row stored before the bytes were kept (decision 0019: parsed JSON,
   * with any secret sealed field by field) becomes the body to send.
   */
  readonly legacyBody?: (stored: unknown) => unknown;
}

/** The answer as sent, the first time and on every replay. */
export interface SentAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly payload: Buffer;
  /** True when this is the stored answer to an earlier request with the same key. */
  readonly replayed: boolean;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** SPEC "Authentication" 7: non-empty, at most 128 bytes, else `idempotency_key_required`. */
export function readIdempotencyKey(request: FastifyRequest): string {
  const value = request.headers[IDEMPOTENCY_HEADER];
  if (typeof value !== 'string') throw fieldError('idempotency_key_required', 'Idempotency-Key', `required on this route: 1 to ${MAX_KEY_BYTES} bytes, new for each operation`);
  if (value.length === 0) throw fieldError('idempotency_key_required', 'Idempotency-Key', 'must not be empty');
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_BYTES) throw fieldError('idempotency_key_required', 'Idempotency-Key', `must be at most ${MAX_KEY_BYTES} bytes`);
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
 * The answer is serialized inside the transaction by the route's own
 * serializer and those bytes are what is stored and sent, so a replay is
 * byte-for-byte the first answer, whatever the process or restart (decision 0019).
 */
export async function runIdempotent<T>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Tx) => Promise<StoredResponse<T>>,
  options: IdempotentOptions = {},
): Promise<SentAnswer> {
  const principal = request.principal;
  if (principal === null) throw new IvoryError('unauthorized');
  const id = { scope: principalBucket(principal), key: readIdempotencyKey(request) };
  const requestHash = fingerprint(request);

  return inTransaction(db, async (trx) => {
    if (!(await claimIdempotencyKey(trx, id, requestHash))) {
      // The claim waited for the holder to commit, so its record is there.
      const existing = await findIdempotentResponse(trx, id);
      if (existing === undefined) throw new Error(`idempotency record ${id.key} vanished after a conflicting claim`);
      return replayOf(existing, requestHash, reply, options);
    }
    const result = await work(trx);
    const payload = serializeFor(reply, result.status, result.body);
    const sealed = options.sealWith !== undefined;
    const bytes = options.sealWith === undefined ? payload : Buffer.from(options.sealWith.seal(payload.toString('utf8')), 'utf8');
    await storeIdempotentResponse(trx, id, { status: result.status, contentType: JSON_CONTENT_TYPE, bytes, sealed });
    return { status: result.status, contentType: JSON_CONTENT_TYPE, payload, replayed: false };
  });
}

/** The stored answer to an earlier request with the same key, or `idempotency_conflict` when that request differed. */
function replayOf(existing: StoredIdempotentResponse, requestHash: string, reply: FastifyReply, options: IdempotentOptions): SentAnswer {
  if (existing.requestHash !== requestHash || existing.status === 0) throw new IvoryError('idempotency_conflict');
  if (existing.bytes === null) {
    const body = options.legacyBody === undefined ? existing.legacyBody : options.legacyBody(existing.legacyBody);
    return { status: existing.status, contentType: JSON_CONTENT_TYPE, payload: serializeFor(reply, existing.status, body), replayed: true };
  }
  const payload = existing.sealed ? Buffer.from(openWith(options, existing.bytes.toString('utf8')), 'utf8') : existing.bytes;
  return { status: existing.status, contentType: existing.contentType ?? JSON_CONTENT_TYPE, payload, replayed: true };
}

/** What `runIdempotentClaimingLast` hands its use case. */
export interface AnswerClaim {
  /**
   * Serializes the answer (the route's serializer, as `runIdempotent` does)
   * and returns the key's record holding those bytes, which the use case must
   * insert inside its last statement (`insertIdempotencyRecord`, as a CTE: one
   * round trip for both).
   */
  claim(status: number, body: unknown): IdempotencyRecord;
}

/**
 * `runIdempotent` for a hot path (invoice creation): the key is claimed in
 * the use case's own last statement, together with the answer, instead of in
 * a statement of its own first and another to store the answer — two round
 * trips fewer (decision 0019).
 *
 * The same guarantees, reached in another order. A finished request with the
 * key makes the claim fail with a unique violation, which rolls the work back;
 * a request still holding the key makes it wait for that request's end. Either
 * way the stored answer is then sent (or `idempotency_conflict`). A use case
 * that refuses before claiming (access, validation, limits) is answered by the
 * stored answer too when there is one, exactly as if the key had been checked
 * first. Not for answers that show a secret (they are sealed; see `runIdempotent`).
 */
export async function runIdempotentClaimingLast(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Tx, answer: AnswerClaim) => Promise<void>,
): Promise<SentAnswer> {
  const claims = new KeyClaims(request, reply);
  try {
    await inTransaction(db, async (trx) => {
      claims.reset();
      await work(trx, claims);
      claims.sent(); // throws inside the transaction, so unclaimed work rolls back
    });
  } catch (error) {
    if (!(error instanceof IvoryError) && !isIdempotencyKeyTaken(error)) throw error;
    const existing = await findIdempotentResponse(db, claims.id);
    if (existing === undefined) throw error;
    return replayOf(existing, claims.requestHash, reply, {});
  }
  return claims.sent();
}

/**
 * `runIdempotentClaimingLast` in one statement and no transaction, for the
 * hottest path (invoice creation with terms this process kept, decision
 * 0019): `work` runs on the pool and writes everything, the claim with its
 * answer included, in a single statement — or nothing. The answer when it
 * did; undefined when it wrote nothing, which sends the request down the
 * general path, where everything is checked again and answered exactly
 * (refusals, replays of a taken key, the limit's exclusive gate). That is the
 * case when `work` returns false, refuses (IvoryError), finds the key taken,
 * fails as a transaction would be run again for (deadlock, a statement
 * prepared before a migration), or fails as `fallsBack` says (its statement's
 * own refusals).
 */
export async function runIdempotentInOneStatement(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (db: Db, answer: AnswerClaim) => Promise<boolean>,
  fallsBack: (error: unknown) => boolean,
): Promise<SentAnswer | undefined> {
  const claims = new KeyClaims(request, reply);
  try {
    if (!(await work(db, claims))) return undefined;
  } catch (error) {
    if (error instanceof IvoryError || isIdempotencyKeyTaken(error) || isRetryableTransactionError(error) || fallsBack(error)) return undefined;
    throw error;
  }
  return claims.sent();
}

/** The Idempotency-Key of a request and the answer its use case claimed it with. */
class KeyClaims implements AnswerClaim {
  readonly id: { readonly scope: string; readonly key: string };
  readonly requestHash: string;
  #claimed: { readonly status: number; readonly payload: Buffer } | undefined;

  constructor(
    request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    const principal = request.principal;
    if (principal === null) throw new IvoryError('unauthorized');
    this.id = { scope: principalBucket(principal), key: readIdempotencyKey(request) };
    this.requestHash = fingerprint(request);
  }

  claim(status: number, body: unknown): IdempotencyRecord {
    const payload = serializeFor(this.reply, status, body);
    this.#claimed = { status, payload };
    return { ...this.id, requestHash: this.requestHash, status, contentType: JSON_CONTENT_TYPE, bytes: payload, sealed: false };
  }

  /** A transaction run again forgets what its first run claimed. */
  reset(): void {
    this.#claimed = undefined;
  }

  /** The claimed answer as it is sent; throws when the use case claimed nothing. */
  sent(): SentAnswer {
    if (this.#claimed === undefined) throw new Error('the use case ended without claiming its Idempotency-Key');
    return { status: this.#claimed.status, contentType: JSON_CONTENT_TYPE, payload: this.#claimed.payload, replayed: false };
  }
}

/** Sends an answer of `runIdempotent` as it was stored: no second serialization. */
export function sendAnswer(reply: FastifyReply, answer: SentAnswer): FastifyReply {
  return reply.status(answer.status).header('content-type', answer.contentType).send(answer.payload);
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
  options: IdempotentOptions = {},
): Promise<FastifyReply> {
  const principal = principalOf(request);
  return sendAnswer(reply, await runIdempotent(db, request, reply, (trx) => work(trx, principal), options));
}

/** `replyIdempotent` for a change whose answer is always `status` with what the use case returns. */
export function replyIdempotentChange<T>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  change: (trx: Tx, principal: Principal) => Promise<T>,
  options?: IdempotentOptions,
): Promise<FastifyReply> {
  return replyIdempotent(db, request, reply, async (trx, principal) => ({ status, body: await change(trx, principal) }), options);
}

/** The bytes the route would send for `body` with `status` (its response schema's serializer, else JSON). */
function serializeFor(reply: FastifyReply, status: number, body: unknown): Buffer {
  reply.status(status);
  const serialized = reply.serialize(body);
  // Fastify types a custom serializer's output loosely; every route here yields a string.
  return typeof serialized === 'string' ? Buffer.from(serialized, 'utf8') : Buffer.from(serialized as ArrayBuffer);
}

function openWith(options: IdempotentOptions, sealed: string): string {
  // A route that stored a sealed answer always passes its sealer; anything else is a programming error.
  if (options.sealWith === undefined) throw new Error('a sealed idempotent answer needs the route to pass sealWith');
  return options.sealWith.open(sealed);
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
  if (depth > MAX_JSON_DEPTH) throw fieldError('invalid_json', 'body', `must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
