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

declare const idKind: unique symbol;

/**
 * A record id (a UUID, SPEC conventions) typed by what it names, so that a shop
 * id cannot be passed where an issuance id is meant: both are text at run time,
 * apart only to the compiler. Ids are named once, where they enter (a row read,
 * a fresh `randomUUID()`, a path parameter checked with `isUuid`), with `asId`.
 */
export type Id<Kind extends string> = string & { readonly [idKind]: Kind };

export type MerchantId = Id<'merchant'>;
export type ShopId = Id<'shop'>;
export type IssuanceId = Id<'issuance'>;
export type GroupId = Id<'issuance_group'>;
export type TransferId = Id<'transfer'>;
export type PayoutId = Id<'payout'>;
export type EventId = Id<'event'>;
export type WebhookEndpointId = Id<'webhook_endpoint'>;
export type DeliveryId = Id<'webhook_delivery'>;

/** Names text as an id of one kind; no check (see `isUuid` for untrusted text). */
export function asId<T extends Id<string>>(value: string): T {
  return value as T;
}

/** `asId` for a nullable column (a reference that may be unset). */
export function asNullableId<T extends Id<string>>(value: string | null): T | null {
  return value === null ? null : (value as T);
}
