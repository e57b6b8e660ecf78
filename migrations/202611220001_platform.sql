-- Platform and merchant access: people, sign-in, merchants, shops, keys, idempotency.

create table users (
  id uuid primary key,
  display_name text not null default '',
  onboarded_at timestamptz,
  blocked_at timestamptz,
  blocked_reason text,
  created_at timestamptz not null default now()
);

-- A way to sign in: a wallet address, an e-mail address, an identity provider subject.
create table identities (
  id uuid primary key,
  user_id uuid not null references users(id) on delete cascade,
  provider text not null check (provider in ('wallet', 'email', 'google')),
  subject text not null,
  label text not null,
  created_at timestamptz not null default now(),
  unique (provider, subject)
);
create index identities_user on identities(user_id);

create table sessions (
  id uuid primary key,
  user_id uuid not null references users(id) on delete cascade,
  token_hash text not null unique,
  csrf_token text not null,
  method text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  mfa_at timestamptz
);
create index sessions_user on sessions(user_id);

create table wallet_challenges (
  id uuid primary key,
  address text not null,
  chain_id integer not null,
  nonce text not null,
  message text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz
);

create table merchants (
  id uuid primary key,
  name text not null,
  shop_limit integer not null default 20,
  -- Operator overrides of SPEC "Limits"; null means the default.
  active_invoice_limit integer,
  deposit_address_limits jsonb,
  team_limit integer,
  blocked_at timestamptz,
  blocked_reason text,
  created_at timestamptz not null default now()
);

create table grants (
  id uuid primary key,
  merchant_id uuid not null references merchants(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  role text not null check (role in ('viewer', 'developer', 'owner')),
  shop_id uuid,
  created_at timestamptz not null default now()
);
create index grants_user on grants(user_id);
create index grants_merchant on grants(merchant_id);
create unique index grants_one_per_scope on grants(merchant_id, user_id, coalesce(shop_id, '00000000-0000-0000-0000-000000000000'::uuid));

create table shops (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  name text not null,
  sandbox boolean not null,
  recipient text,
  delegate text,
  payout_target text not null default 'address' check (payout_target in ('address', 'wallet')),
  solana_recipient text,
  tron_recipient text,
  solana_payout_target text not null default 'address' check (solana_payout_target in ('address', 'wallet')),
  tron_payout_target text not null default 'address' check (tron_payout_target in ('address', 'wallet')),
  branding_name text,
  branding_logo_asset_id uuid,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index shops_merchant on shops(merchant_id);
-- SPEC "Limits": one sandbox shop per merchant.
create unique index shops_one_sandbox on shops(merchant_id) where sandbox and archived_at is null;

create table api_keys (
  id uuid primary key,
  shop_id uuid not null references shops(id),
  merchant_id uuid not null references merchants(id),
  name text not null,
  token_hash text not null unique,
  token_prefix text not null,
  scopes jsonb not null,
  allowed_ips jsonb not null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_shop on api_keys(shop_id);

-- SPEC "Authentication" 7. One row per (principal scope, key); the row and the
-- effect of the request commit in one transaction.
create table idempotency_records (
  scope text not null,
  key text not null,
  request_hash text not null,
  response_status integer not null,
  response_body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (scope, key)
);
