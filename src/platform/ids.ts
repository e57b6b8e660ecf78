/**
 * Record ids are UUIDs (SPEC conventions). They arrive from paths, queries and
 * cursors as text; anything not a UUID cannot name a record (and would fail the
 * `uuid` cast in SQL), so it is refused before a query. Case-insensitive, as
 * PostgreSQL reads a uuid.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
