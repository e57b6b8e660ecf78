-- Solana networks (issue 24). No forwarder contract: each issuance's payment address is its own
-- ed25519 key, derived (SLIP-0010, m/44'/501'/<index>'/0') from one deposit seed per deployment,
-- sealed with SECRET_KEY (decision 0036). The relayer pays fees and token-account rent.

-- One relayer per Solana network: fee payer of sweeps and rent payer of token accounts. The key
-- (32-byte ed25519 seed, hex) is sealed with SECRET_KEY. `lamports_needed` is what payouts in
-- gas.wait need it to hold (null when none waits): the tracker wakes them once it does.
create table solana_relayers (
  chain_id bigint primary key,
  address text not null,
  sealed_key text not null,
  lamports_needed numeric(78, 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The deployment's one deposit seed (a single row, id 1), sealed with SECRET_KEY. A leaked seed
-- is theft of every Solana deposit address: it is opened only where sweeps are signed.
create table solana_deposit_seeds (
  id smallint primary key check (id = 1),
  sealed_seed text not null,
  created_at timestamptz not null default now()
);

-- Derivation indexes hand out from here: one index per issuance, never reused.
create sequence solana_deposit_index_seq minvalue 0 start 0;

-- Each Solana issuance's deposit key (by derivation index) and its token account.
create table solana_deposit_addresses (
  issuance_id uuid primary key,
  chain_id bigint not null,
  derivation_index integer not null unique,
  owner_address text not null,
  token_account text not null,
  mint text not null,
  token_program text not null,
  -- invoice addresses retire once swept and empty; deposit addresses never do
  kind text not null check (kind in ('invoice', 'deposit')),
  -- the token account's rent returned to the relayer (closeAccount); still watched after
  rent_reclaimed_at timestamptz,
  created_at timestamptz not null default now()
);
create index solana_deposit_addresses_chain on solana_deposit_addresses(chain_id, created_at);

-- Every transaction signed for a payout, stored before it is broadcast (the expiring-payouts rule,
-- chains/expiring-payout.ts). `last_valid_block_height` is the blockhash's expiry. status:
-- signed (stored, maybe broadcast), landed (in a block not yet finalized), confirmed (finalized,
-- succeeded), failed (finalized with an error), expired (absent, and its expiry behind the
-- finalized block height: it can never land).
create table solana_payout_transactions (
  id uuid primary key,
  payout_id uuid not null,
  issuance_id uuid not null,
  chain_id bigint not null,
  signature text not null,
  wire_base64 text not null,
  last_valid_block_height bigint not null,
  status text not null check (status in ('signed', 'landed', 'confirmed', 'failed', 'expired')),
  slot bigint,
  fee_lamports bigint,
  error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  broadcast_at timestamptz,
  unique (chain_id, signature)
);
create index solana_payout_transactions_payout on solana_payout_transactions(payout_id, created_at);
create index solana_payout_transactions_open on solana_payout_transactions(chain_id, status) where status in ('signed', 'landed');
