-- TOTP and recovery codes, and the MFA state of sessions (issue 10, item 4;
-- SPEC "Principal and session", "Authentication" 6).

-- One authenticator per user. The secret is sealed with SECRET_KEY (Ivory
-- must read it back to compute codes). A re-enrollment keeps the confirmed
-- secret working until the pending one is confirmed.
create table totp_factors (
  user_id uuid primary key references users(id),
  secret_sealed text,
  confirmed_at timestamptz,
  pending_secret_sealed text,
  pending_created_at timestamptz,
  -- The last time step (unix seconds / 30) accepted: a code of this step or
  -- an earlier one is never accepted again (no replay).
  last_used_step bigint,
  created_at timestamptz not null
);

-- Ten single-use codes per confirmed enrollment; only a keyed digest is kept.
create table recovery_codes (
  id uuid primary key,
  user_id uuid not null references users(id),
  code_digest text not null,
  created_at timestamptz not null,
  used_at timestamptz
);
create index recovery_codes_user on recovery_codes(user_id) where used_at is null;

-- Wrong second-factor codes given in this session (TOTP and recovery
-- together); at the limit the session is revoked.
alter table sessions add column mfa_failures integer not null default 0;
