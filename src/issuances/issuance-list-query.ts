import { isUuid } from '../platform/ids.js';
import { chainIdFilter, instantFilter, isDateTime, oneOfFilter as oneOf, refuseFilter as refuse, tokenFilter } from '../platform/list-filters.js';
import { decodeCursor, encodeCursor, invalidCursor } from '../platform/page-cursor.js';
import type { IssuanceKind, IssuanceStatus } from './issuance.js';

/**
 * The query of GET /shops/{id}/issuances, checked: pure, no I/O. Every value
 * arrives as text; a bad one is `invalid_request` with `details` naming the
 * parameter (`field`) and what it must be (`reason`), a bad cursor
 * `invalid_cursor`. Nothing is read before the whole query is accepted.
 */

export const DEFAULT_ISSUANCE_PAGE = 50;
export const MAX_ISSUANCE_PAGE = 100;

/** The parameters the route takes, all optional, as text. */
export interface IssuanceListParameters {
  readonly limit?: string;
  readonly cursor?: string;
  readonly kind?: string;
  readonly status?: string;
  readonly cancelled?: string;
  readonly external_id?: string;
  readonly created_after?: string;
  readonly created_before?: string;
  readonly chain_id?: string;
  readonly token?: string;
}

/**
 * A place in the list's order, (created_at, id) descending: the last row a
 * page showed. `createdAt` is UTC with microseconds as PostgreSQL stores it
 * (a millisecond `Date` could land between two rows and skip or repeat one).
 */
export interface IssuanceListPosition {
  readonly createdAt: string;
  readonly id: string;
}

export interface IssuanceListFilter {
  readonly kind?: IssuanceKind;
  readonly status?: IssuanceStatus;
  /** true: `cancelled_at` set; false: not set. */
  readonly cancelled?: boolean;
  readonly externalId?: string;
  /** RFC 3339 instants, exclusive bounds on created_at, passed to SQL as written (no precision lost). */
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly chainId?: number;
  /** As the caller wrote it; the use case turns it into the stored spellings. */
  readonly token?: string;
}

export interface IssuanceListRequest {
  readonly limit: number;
  readonly after: IssuanceListPosition | undefined;
  readonly filter: IssuanceListFilter;
}

const KINDS: readonly IssuanceKind[] = ['invoice', 'deposit'];
/** SPEC "States and transitions". Cancellation is not a status (filter `cancelled`). */
const STATUSES: readonly IssuanceStatus[] = ['registering', 'open', 'funded', 'settled', 'reconciling'];
const EXTERNAL_ID_MAX = 1000;
const CONTROL_CHARACTERS = /\p{Cc}/u;

export function parseIssuanceListQuery(query: IssuanceListParameters): IssuanceListRequest {
  const filter: {
    -readonly [Key in keyof IssuanceListFilter]: IssuanceListFilter[Key];
  } = {};
  if (query.kind !== undefined) filter.kind = oneOf('kind', query.kind, KINDS);
  if (query.status !== undefined) filter.status = oneOf('status', query.status, STATUSES);
  if (query.cancelled !== undefined) filter.cancelled = oneOf('cancelled', query.cancelled, ['true', 'false']) === 'true';
  if (query.external_id !== undefined) filter.externalId = externalId(query.external_id);
  if (query.created_after !== undefined) filter.createdAfter = instantFilter('created_after', query.created_after);
  if (query.created_before !== undefined) filter.createdBefore = instantFilter('created_before', query.created_before);
  if (query.chain_id !== undefined) filter.chainId = chainIdFilter('chain_id', query.chain_id);
  if (query.token !== undefined) filter.token = tokenFilter('token', query.token);
  return {
    limit: limit(query.limit),
    after: query.cursor === undefined ? undefined : decodeIssuanceCursor(query.cursor),
    filter,
  };
}

function limit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_ISSUANCE_PAGE;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_ISSUANCE_PAGE) {
    refuse('limit', `must be an integer from 1 to ${MAX_ISSUANCE_PAGE}`, { minimum: 1, maximum: MAX_ISSUANCE_PAGE });
  }
  return Number(value);
}

function externalId(value: string): string {
  // Creation takes up to 1000 characters without control characters: nothing else can match.
  if (value.length === 0 || value.length > EXTERNAL_ID_MAX || CONTROL_CHARACTERS.test(value)) {
    refuse('external_id', `must be 1 to ${EXTERNAL_ID_MAX} characters without control characters`);
  }
  return value;
}

const POSITION_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque to clients: base64url of `[created_at, id]` of the last row shown. */
export function encodeIssuanceCursor(position: IssuanceListPosition): string {
  return encodeCursor([position.createdAt, position.id]);
}

export function decodeIssuanceCursor(cursor: string): IssuanceListPosition {
  const [createdAt = '', id = ''] = decodeCursor(cursor, 2);
  if (!POSITION_TIME.test(createdAt) || !isUuid(id) || !isDateTime(createdAt.split(/[-T:.]/).slice(0, 6).map(Number))) throw invalidCursor();
  return { createdAt, id: id.toLowerCase() };
}
