-- Operator controls over one merchant (issue 10 item 7, admin module).
-- merchants.blocked_at / blocked_reason and the limit overrides exist since
-- 202611220001; this states the block's invariant and adds fee terms per merchant.

-- A block always carries its reason (SPEC "Errors" account_disabled: reason in details), 1-500 characters.
alter table merchants add constraint merchants_block_has_reason
  check ((blocked_at is null) = (blocked_reason is null) and (blocked_reason is null or char_length(blocked_reason) between 1 and 500));

-- Fee terms of one merchant on one network, replacing the catalogue's for new
-- issuances (an issuance keeps the terms it was created with). Amounts in
-- 18-decimal units, like the catalogue's terms.
create table merchant_fee_terms (
  merchant_id uuid not null references merchants(id) on delete cascade,
  chain_id integer not null,
  kind text not null check (kind in ('invoice', 'deposit')),
  bps integer not null check (bps between 0 and 10000),
  minimum numeric(78,0) not null check (minimum >= 0),
  maximum numeric(78,0) not null check (maximum >= minimum),
  updated_at timestamptz not null,
  primary key (merchant_id, chain_id, kind)
);
