-- Tron networks (issue 23). Their forwarders are the EVM's contracts on the TVM and live in
-- evm_forwarders (TVM addresses as 0x hex, keyed by issuance); what differs is the relayer,
-- which has no nonce, and the payout transactions, which expire instead (decision 0032).

-- One relayer per Tron network: the account that sends sweeps and burns TRX for their energy.
-- The key is sealed with SECRET_KEY. `trx_needed_sun` is what payouts in gas.wait need it to
-- hold (null when none waits): the tracker wakes them once the balance covers it.
create table tron_relayers (
  chain_id bigint primary key,
  address text not null,
  sealed_key text not null,
  trx_needed_sun numeric(78, 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Every transaction signed for a payout, stored before it is broadcast (the expiring-payouts
-- rule, chains/expiring-payout.ts): a payout is signed anew only when every earlier row is
-- proven unable to land. `expiration` is the transaction's expiry in ms since the epoch, the
-- clock of block timestamps. status: signed (stored, maybe broadcast), landed (in a block not
-- yet solidified), confirmed (solidified, SUCCESS), failed (solidified, reverted or out of
-- energy), expired (absent, and its expiry behind the solidified block: it can never land).
create table tron_payout_transactions (
  id uuid primary key,
  payout_id uuid not null,
  chain_id bigint not null,
  relayer text not null,
  tx_id text not null,
  raw_data_hex text not null,
  signature text not null,
  expiration bigint not null,
  fee_limit bigint not null,
  status text not null check (status in ('signed', 'landed', 'confirmed', 'failed', 'expired')),
  block_number bigint,
  receipt_result text,
  energy_used bigint,
  fee_sun bigint,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  broadcast_at timestamptz,
  unique (chain_id, tx_id)
);
create index tron_payout_transactions_payout on tron_payout_transactions(payout_id, created_at);
create index tron_payout_transactions_open on tron_payout_transactions(chain_id, status) where status in ('signed', 'landed');
