import { IvoryError } from './errors.js';
import { isUuid } from './ids.js';

/**
 * The filter values the lists take (issuances, payments, events), checked the
 * same way everywhere: pure, no I/O. Every value arrives as query text; a bad
 * one is `invalid_request` with `details` naming the parameter (`field`) and
 * what it must be (`reason`), before anything is read (decision 0024).
 */

export function refuseFilter(field: string, reason: string, more: Record<string, unknown> = {}): never {
  throw new IvoryError('invalid_request', { field, reason, ...more });
}

export function oneOfFilter<Value extends string>(field: string, value: string, allowed: readonly Value[]): Value {
  if (!(allowed as readonly string[]).includes(value)) refuseFilter(field, `must be one of: ${allowed.join(', ')}`);
  return value as Value;
}

/** A filter id that is not a UUID names nothing: refused rather than silently matching nothing. Lower-cased, as ids are stored. */
export function uuidFilter(field: string, value: string): string {
  if (!isUuid(value)) refuseFilter(field, 'must be a UUID');
  return value.toLowerCase();
}

/** The catalogue admits chain ids up to the largest exact JavaScript integer: anything above names no network. */
const CHAIN_ID_MAX = Number.MAX_SAFE_INTEGER;

export function chainIdFilter(field: string, value: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value) || Number(value) > CHAIN_ID_MAX) refuseFilter(field, `must be an integer from 1 to ${CHAIN_ID_MAX}`);
  return Number(value);
}

/** Contract addresses (0x hex), Solana mints and Tron addresses (base58): letters and digits. */
const TOKEN = /^[A-Za-z0-9]{1,128}$/;

export function tokenFilter(field: string, value: string): string {
  if (!TOKEN.test(value)) refuseFilter(field, 'must be a token address: 1 to 128 letters and digits');
  return value;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time with its zone (`2026-11-27T10:00:00Z`,
 * `…T10:00:00.5+02:00`), every field within its range (zones up to ±14:59),
 * so that the database never sees a value it would refuse. Answered as
 * written: passed to SQL as text, no precision lost.
 */
export function instantFilter(field: string, value: string): string {
  const match = INSTANT.exec(value);
  const [year, month, day, hour, minute, second, zoneHours = 0, zoneMinutes = 0] = (match ?? []).slice(1).map((part) => (part === undefined ? undefined : Number(part)));
  const valid = match !== null && isDateTime([year, month, day, hour, minute, second]) && zoneHours <= 14 && zoneMinutes <= 59;
  if (!valid) refuseFilter(field, 'must be an RFC 3339 date-time with a zone, such as 2026-11-27T10:00:00Z');
  return value;
}

/** Year 1–9999, a day the month has, hours 0–23, minutes and seconds 0–59. */
export function isDateTime([year = 0, month = 0, day = 0, hour = 99, minute = 99, second = 99]: readonly (number | undefined)[]): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
