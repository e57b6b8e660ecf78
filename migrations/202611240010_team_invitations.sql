-- Team invitations (issue 11; SPEC "Merchants and team", "Team", "Limits").
-- An owner invites an e-mail address to the whole merchant (shop_id null) or to
-- one shop; the person signed in with that address accepts once, which writes a
-- row in `grants`. A row is pending until accepted, revoked or expired, and
-- pending rows count against the team limit beside the members.
create table invitations (
  id uuid primary key,
  merchant_id uuid not null references merchants(id) on delete cascade,
  provider text not null check (provider in ('email')),
  -- The address lower-cased: the identity subject that may accept.
  subject text not null,
  -- The address as given (domain lower-cased): where the mail goes, what the team list shows.
  address text not null,
  role text not null check (role in ('viewer', 'developer', 'owner')),
  shop_id uuid references shops(id) on delete cascade,
  invited_by uuid references users(id) on delete set null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references users(id) on delete set null,
  revoked_at timestamptz
);
create index invitations_merchant on invitations(merchant_id, created_at);
