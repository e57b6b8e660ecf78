-- Every operator action (admin module): who, what, on what, with which details, when.
-- Rows are only ever inserted.
create table admin_audit_entries (
  id uuid primary key,
  -- Insertion order: the audit list pages newest first by it.
  sequence bigint generated always as identity unique,
  -- The operator token is one principal: always 'operator'.
  actor text not null,
  -- 'api' (the operator API, with the client's address) or 'cli' (the ivory command, no address).
  source text not null check (source in ('api', 'cli')),
  actor_ip text,
  action text not null,
  target_type text not null,
  target_id text not null,
  details jsonb not null,
  created_at timestamptz not null
);
create index admin_audit_entries_target on admin_audit_entries(target_type, target_id, sequence desc);
