-- Issuances (invoices and deposits), their groups, the transfer ledger and the
-- payout queue (ARCHITECTURE "The spine"; LEDGER.md). Money is numeric(78,0) in
-- token base units unless a column says otherwise.

-- A multi-option issuance (SPEC "Checkout group"): one row here, one `issuances`
-- row per option. A group is cancelled, expires and is paused as one.
create table issuance_groups (
  id uuid primary key,
  public_id text not null unique,
  shop_id uuid not null references shops(id),
  merchant_id uuid not null references merchants(id),
  kind text not null check (kind in ('invoice', 'deposit')),
  sandbox boolean not null,
  -- The decimal token amount as the merchant sent it, normalised ("10.5"); null for deposits.
  amount text,
  -- The first option whose confirmed funds reached its amount (LEDGER "Groups").
  paid_issuance_id uuid,
  external_id text,
  description text,
  return_url text,
  expires_at timestamptz,
  cancelled_at timestamptz,
  cancel_reason text check (cancel_reason in ('expired', 'merchant_blocked')),
  disabled_at timestamptz,
  created_at timestamptz not null
);
create index issuance_groups_shop on issuance_groups(shop_id, created_at desc, id desc);
-- Active invoice count (SPEC "Limits": a group counts once).
create index issuance_groups_active on issuance_groups(merchant_id, sandbox)
  where kind = 'invoice' and cancelled_at is null and paid_issuance_id is null;
create index issuance_groups_due_expiry on issuance_groups(expires_at)
  where kind = 'invoice' and cancelled_at is null and paid_issuance_id is null;

-- One payable option: one token on one network at one address.
create table issuances (
  id uuid primary key,
  public_id text not null unique,
  shop_id uuid not null references shops(id),
  merchant_id uuid not null references merchants(id),
  group_id uuid references issuance_groups(id),
  -- The option's place in the group's `assets` list (0-based); null outside a group.
  group_position integer,
  kind text not null check (kind in ('invoice', 'deposit')),
  sandbox boolean not null,
  chain_id integer not null,
  family text not null check (family in ('evm', 'tron', 'solana')),
  token text not null,
  token_decimals integer not null,
  -- Invoice amount A; null for deposits.
  amount numeric(78,0),
  -- SPEC `received`: all confirmed incoming funds, late and duplicate included, reverted excluded.
  received numeric(78,0) not null default 0,
  -- Invoices: confirmed funds counted toward A and the payout (not late, not duplicate).
  credited numeric(78,0) not null default 0,
  -- Deposits: the unswept balance B; restarts after each scheduled sweep.
  unswept numeric(78,0) not null default 0,
  status text not null check (status in ('registering', 'open', 'funded', 'settled', 'reconciling')),
  -- Null until allocated (status registering).
  address text,
  allocation_attempts integer not null default 0,
  next_allocation_at timestamptz,
  -- Copied from the shop at creation: later shop changes do not reach this issuance (SPEC "Shop").
  recipient text,
  delegate text,
  payout_target text not null check (payout_target in ('address', 'wallet')),
  -- Fee terms snapshot: bps, minimum and maximum in 18-decimal units (SPEC "Shop terms").
  fee_bps integer not null,
  fee_minimum numeric(78,0) not null,
  fee_maximum numeric(78,0) not null,
  -- Deposits: sweep threshold in base units at creation; null for invoices.
  sweep_threshold numeric(78,0),
  external_id text,
  description text,
  return_url text,
  -- Invoices only; deposits never expire.
  expires_at timestamptz,
  cancelled_at timestamptz,
  cancel_reason text check (cancel_reason in ('expired', 'merchant_blocked')),
  disabled_at timestamptz,
  funded_at timestamptz,
  settled_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index issuances_shop on issuances(shop_id, created_at desc, id desc);
create index issuances_group on issuances(group_id) where group_id is not null;
create unique index issuances_address on issuances(chain_id, address) where address is not null;
-- Active invoices per merchant (ungrouped; groups are counted on issuance_groups).
create index issuances_active_invoices on issuances(merchant_id, sandbox)
  where kind = 'invoice' and group_id is null and cancelled_at is null and funded_at is null;
-- Active deposit addresses per merchant and family (each option its own address).
create index issuances_active_deposits on issuances(merchant_id, sandbox, family)
  where kind = 'deposit' and disabled_at is null;
create index issuances_due_allocation on issuances(next_allocation_at) where status = 'registering';
create index issuances_due_expiry on issuances(expires_at)
  where kind = 'invoice' and group_id is null and cancelled_at is null and funded_at is null;

-- The payout queue (ARCHITECTURE rule 4): one row per sweep of a payment address.
create table payouts (
  id uuid primary key,
  issuance_id uuid not null references issuances(id),
  shop_id uuid not null references shops(id),
  sandbox boolean not null,
  chain_id integer not null,
  token text not null,
  token_decimals integer not null,
  status text not null check (status in
    ('scheduled', 'waiting_gas', 'sending', 'sent', 'confirmed', 'failed', 'cancelled', 'reverted')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  last_error text,
  -- Split of LEDGER "Invoices"/"Deposits": gross = to_recipient + to_operator.
  gross numeric(78,0) not null,
  fee numeric(78,0) not null,
  to_recipient numeric(78,0) not null,
  to_operator numeric(78,0) not null,
  recipient text,
  fee_bps integer not null,
  fee_minimum numeric(78,0) not null,
  fee_maximum numeric(78,0) not null,
  tx_hash text,
  sent_at timestamptz,
  confirmed_at timestamptz,
  failed_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index payouts_issuance on payouts(issuance_id, created_at desc);
create index payouts_shop on payouts(shop_id, created_at desc, id desc);
create index payouts_due on payouts(next_attempt_at) where status in ('scheduled', 'waiting_gas');

-- The ledger: every incoming transfer seen at an issuance's address, credited
-- once by its natural key (ARCHITECTURE rule 3).
create table transfers (
  id uuid primary key,
  issuance_id uuid not null references issuances(id),
  shop_id uuid not null references shops(id),
  sandbox boolean not null,
  chain_id integer not null,
  token text not null,
  tx_hash text not null,
  -- Log index on EVM and Tron, instruction index on Solana.
  log_index integer not null,
  from_address text,
  to_address text,
  amount numeric(78,0) not null,
  status text not null check (status in ('observed', 'confirmed', 'reverted')),
  -- Decided when confirmed: counted toward the payment, joined a funded
  -- invoice's overpayment, arrived after settlement, or paid a settled group twice.
  disposition text check (disposition in ('credited', 'overpayment', 'late', 'duplicate')),
  -- The payout that sweeps it (null for late and duplicate transfers).
  payout_id uuid references payouts(id),
  -- The transfer.confirmed event, which transfer.reverted points at.
  confirmed_event_id uuid,
  observed_at timestamptz,
  confirmed_at timestamptz,
  reverted_at timestamptz,
  created_at timestamptz not null,
  unique (chain_id, tx_hash, log_index)
);
create index transfers_issuance on transfers(issuance_id, created_at);
create index transfers_shop on transfers(shop_id, created_at desc, id desc);
create index transfers_payout on transfers(payout_id) where payout_id is not null;
create index transfers_confirmed_event on transfers(confirmed_event_id) where confirmed_event_id is not null;
