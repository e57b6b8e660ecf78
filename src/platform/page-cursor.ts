import { fieldError, type IvoryError } from './errors.js';
import { isUuid } from './ids.js';

const CURSOR_REASON = 'is not a cursor this list gave out: pass next_cursor back unchanged';

/** `invalid_cursor`, naming the query parameter. */
export function invalidCursor(): IvoryError {
  return fieldError('invalid_cursor', 'cursor', CURSOR_REASON);
}

/**
 * Opaque page cursors: base64url of a JSON array of strings (the sort key of
 * the last row shown). Clients pass them back untouched; anything that does
 * not decode to the expected shape is `invalid_cursor`.
 */
export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): string[] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parts) || parts.length !== arity || !parts.every((part) => typeof part === 'string')) {
    throw invalidCursor();
  }
  return parts as string[];
}

/** A (created_at, id) keyset position, newest first. */
export interface TimeKey {
  readonly createdAt: Date;
  readonly id: string;
}

export function encodeTimeKey(key: TimeKey): string {
  return encodeCursor([key.createdAt.toISOString(), key.id]);
}

export function decodeTimeKey(cursor: string): TimeKey {
  const [createdAt = '', id = ''] = decodeCursor(cursor, 2);
  const time = new Date(createdAt);
  if (Number.isNaN(time.getTime()) || !isUuid(id)) throw invalidCursor();
  return { createdAt: time, id };
}

/** A position in the events' global insertion order (`events.sequence`), newest first. */
export function encodeSequenceKey(sequence: string): string {
  return encodeCursor([sequence]);
}

export function decodeSequenceKey(cursor: string): string {
  const [sequence = ''] = decodeCursor(cursor, 1);
  if (!/^[1-9]\d{0,18}$/.test(sequence)) throw invalidCursor();
  return sequence;
}
