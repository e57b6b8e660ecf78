import { EVENT_GROUPS, EVENT_TYPES, INTERNAL_SIGNALS } from '../events/index.js';
import { fieldError } from '../platform/errors.js';
import { checkWebhookUrl } from '../platform/http-client/ssrf.js';

/** SPEC "Limits": webhook endpoints per shop (deleted ones do not count). */
export const MAX_ENDPOINTS_PER_SHOP = 10;

/** After a rotation the previous secret keeps signing this long, beside the new one. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const MAX_URL_LENGTH = 2048;

const ACCEPTED_FILTERS: ReadonlySet<string> = new Set<string>([...EVENT_TYPES, ...EVENT_GROUPS, ...INTERNAL_SIGNALS]);

/**
 * SPEC "Events", Filters: event names, the groups `transfer`, `invoice`,
 * `payout`, and the internal signals (accepted, never delivered). At least
 * one; none unknown; none repeated.
 */
export function validateFilters(filters: readonly string[]): string[] {
  if (filters.length === 0) throw fieldError('invalid_filters', 'filters', 'must list at least one event name or group');
  const seen = new Map<string, number>();
  filters.forEach((filter, index) => {
    if (!ACCEPTED_FILTERS.has(filter)) {
      throw fieldError('invalid_filters', `filters[${index}]`, `must be an event name (such as invoice.closed) or one of the groups ${EVENT_GROUPS.join(', ')}`);
    }
    const earlier = seen.get(filter);
    if (earlier !== undefined) throw fieldError('invalid_filters', `filters[${index}]`, `repeats filters[${earlier}]`);
    seen.set(filter, index);
  });
  return [...filters];
}

/**
 * SPEC "Webhook endpoint and delivery": a public HTTPS address. The stored
 * form is the parsed one (fragment dropped). What a host name resolves to is
 * checked again on every connection by the delivery worker.
 */
export function validateEndpointUrl(url: string, allowPrivate: boolean): string {
  if (url.length > MAX_URL_LENGTH) throw fieldError('invalid_webhook_url', 'url', `must be at most ${MAX_URL_LENGTH} characters`);
  const checked = checkWebhookUrl(url, { allowPrivate });
  if (!checked.ok) throw fieldError('invalid_webhook_url', 'url', `must be a public https address: ${checked.reason}`);
  return checked.url.toString();
}

/** The endpoint as the API shows it; the secret never appears here. */
export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly filters: readonly string[];
  readonly enabled: boolean;
  readonly disabled_reason: string | null;
  readonly disabled_at: string | null;
  /** While a rotated-out secret still signs beside the new one. */
  readonly previous_secret_expires_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface EndpointRecord {
  readonly id: string;
  readonly shopId: string;
  readonly url: string;
  readonly filters: readonly string[];
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly disabledAt: Date | null;
  readonly previousSecretExpiresAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function endpointView(endpoint: EndpointRecord, now: Date): EndpointView {
  const overlap = endpoint.previousSecretExpiresAt;
  return {
    id: endpoint.id,
    url: endpoint.url,
    filters: endpoint.filters,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    previous_secret_expires_at: overlap !== null && overlap > now ? overlap.toISOString() : null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
