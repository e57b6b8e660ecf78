-- The outbox (ARCHITECTURE rule 1) and webhook fan-out targets.

create table events (
  id uuid primary key,
  -- Global insertion order, for cursors; SPEC promises no delivery order.
  sequence bigint generated always as identity unique,
  shop_id uuid not null references shops(id),
  type text not null,
  issuance_id uuid,
  -- Per-issuance order (also in data.sequence), so receivers can order events.
  issuance_sequence integer,
  -- The exact envelope bytes, fixed when the event is written: every delivery,
  -- retry and replay sends these bytes.
  envelope text not null,
  created_at timestamptz not null
);
create index events_shop_sequence on events(shop_id, sequence desc);
create index events_issuance on events(issuance_id, issuance_sequence);

create table webhook_endpoints (
  id uuid primary key,
  shop_id uuid not null references shops(id),
  url text not null,
  -- Event names and group names (`transfer`, `invoice`, `payout`) as given.
  filters jsonb not null,
  secret_sealed text not null,
  -- During rotation the previous secret signs too, until it expires.
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  -- Set at the first failure after a success; cleared by a success.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index webhook_endpoints_shop on webhook_endpoints(shop_id) where deleted_at is null;

create table webhook_deliveries (
  id uuid primary key,
  event_id uuid not null references events(id),
  endpoint_id uuid not null references webhook_endpoints(id),
  shop_id uuid not null references shops(id),
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  created_at timestamptz not null,
  unique (event_id, endpoint_id)
);
create index webhook_deliveries_due on webhook_deliveries(next_attempt_at) where status = 'pending';
create index webhook_deliveries_shop on webhook_deliveries(shop_id, created_at desc, id desc);
