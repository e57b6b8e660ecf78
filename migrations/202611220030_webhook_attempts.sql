-- Webhook delivery attempts (the delivery log) and the worker's lease.

-- One row per HTTP attempt, whatever its outcome. `id` is the attempt id sent
-- in the <Brand>-Attempt-ID header.
create table webhook_attempts (
  id uuid primary key,
  delivery_id uuid not null references webhook_deliveries(id),
  shop_id uuid not null references shops(id),
  started_at timestamptz not null,
  -- Null when no HTTP answer came back (timeout, refused connection, SSRF guard).
  status_code integer,
  latency_ms integer not null,
  error text,
  response_excerpt text
);
create index webhook_attempts_delivery on webhook_attempts(delivery_id, started_at);

-- A worker that claims a delivery pushes next_attempt_at forward (the lease)
-- and stamps this token; it records the outcome only while the token is still
-- there, so a replay or a recovery that re-queued the row in the meantime, or a
-- second worker after the lease ran out, is never overwritten.
alter table webhook_deliveries add column lease_token uuid;

-- `attempts` counts every attempt ever made. A replay or a recovery starts a
-- fresh round of the retry schedule: the attempt number within the schedule is
-- attempts - round_started_at + 1.
alter table webhook_deliveries add column round_started_at integer not null default 0;

-- The delivery log filters by endpoint (by event: the unique (event_id,
-- endpoint_id) index serves); recovery scans an endpoint's failed deliveries.
create index webhook_deliveries_endpoint on webhook_deliveries(endpoint_id, created_at desc);
