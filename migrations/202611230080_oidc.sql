-- Identity-provider sign-in (issue 10, item 2): one row per authorization
-- request sent to the provider, taken (deleted) by the first callback that
-- presents its state, so a state is single-use whatever the outcome.
create table oidc_states (
  id uuid primary key,
  -- SHA-256 of the state sent to the provider: the row is found by it, and a
  -- copy of the table does not hand out states that a callback would accept.
  state_digest text not null unique,
  nonce text not null,
  -- The PKCE code verifier, sealed with SECRET_KEY.
  code_verifier_sealed text not null,
  -- A same-origin path to go back to after sign-in, checked before it is stored.
  return_to text,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index oidc_states_expiry on oidc_states(expires_at);
