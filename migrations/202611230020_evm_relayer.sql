-- EVM relayer, forwarders and crash-safe payout transactions (chains/evm).

-- One relayer per network: the account that sends sweeps and pays their gas.
-- The private key is sealed with SECRET_KEY (SecretBox). `next_nonce` is the
-- nonce the next signed transaction takes: nonces live here, never in a
-- process, so a crash cannot hand one nonce to two transactions. The tracker
-- lease lets one process at a time watch the relayer's transactions.
create table evm_relayers (
  chain_id integer primary key,
  address text not null,
  sealed_key text not null,
  next_nonce bigint not null default 0,
  tracker_owner text,
  tracker_lease_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The forwarder of one live issuance, written at allocation: the CREATE2
-- address and the terms its salt commits (token base units; fee bounds
-- already converted from 18 decimals). A sweep is built from these columns
-- only, so the money can go nowhere else than where the address says.
create table evm_forwarders (
  issuance_id uuid primary key,
  chain_id integer not null,
  kind text not null check (kind in ('invoice', 'deposit')),
  factory text not null,
  address text not null,
  terms_id text not null,
  token text not null,
  recipient text not null,
  fee_wallet text not null,
  delegate text not null,
  amount numeric(78,0) not null,
  fee_min numeric(78,0) not null,
  fee_max numeric(78,0) not null,
  fee_bps integer not null,
  created_at timestamptz not null
);
create index evm_forwarders_address on evm_forwarders(chain_id, lower(address));

-- Every payout transaction the relayer signed, stored before it is broadcast.
-- One nonce per attempt; a fee bump is another row with the same nonce
-- (whichever mines wins, the others become `replaced`). Statuses:
--   pending   signed (and maybe broadcast), not seen in a block
--   mined     in a block (mined_block_*), not yet at confirmation depth
--   confirmed succeeded at depth (the ledger was told)
--   failed    reverted at depth (status 0): the attempt used its nonce
--   replaced  another row with its nonce was mined
--   dropped   its nonce was used by a transaction that is none of ours
create table evm_payout_transactions (
  id uuid primary key,
  payout_id uuid not null,
  chain_id integer not null,
  relayer text not null,
  nonce bigint not null,
  -- 0 for the first signature of a nonce, n for its n-th fee bump.
  replacement integer not null,
  raw_transaction text not null,
  tx_hash text not null,
  gas_limit numeric(78,0) not null,
  max_fee_per_gas numeric(78,0) not null,
  max_priority_fee_per_gas numeric(78,0) not null,
  status text not null check (status in ('pending', 'mined', 'confirmed', 'failed', 'replaced', 'dropped')),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  broadcast_at timestamptz,
  mined_block_number bigint,
  mined_block_hash text,
  receipt_status text check (receipt_status in ('success', 'reverted')),
  gas_used numeric(78,0),
  effective_gas_price numeric(78,0),
  confirmed_at timestamptz,
  unique (chain_id, tx_hash),
  unique (chain_id, relayer, nonce, replacement)
);
create index evm_payout_transactions_payout on evm_payout_transactions(payout_id, nonce desc, replacement desc);
-- The tracker's work: open rows, and confirmed ones it still watches for reorgs.
create index evm_payout_transactions_open on evm_payout_transactions(chain_id, status, mined_block_number)
  where status in ('pending', 'mined', 'confirmed');
