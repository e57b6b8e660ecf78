-- The EVM chain watcher (chains/evm/watcher): one scan cursor per network, the
-- hashes of recently scanned blocks (to notice reorgs) and every token transfer
-- it saw arrive at a watched address. The ledger (`transfers`, module
-- issuances) hears of these only through `recordTransfer`; this table is the
-- watcher's own memory and the queue of what the ledger still has to be told.

-- The next block to scan, compare-and-set by the commit that records the range
-- before it (one scanner per network: ARCHITECTURE rule 4).
create table evm_scan_cursors (
  chain_id bigint primary key,
  next_block bigint not null,
  -- The chain head as last seen, and when: the operator's admin endpoint shows it.
  head_block bigint,
  updated_at timestamptz not null
);

-- Hashes of scanned blocks near the head (each range's last block and every
-- block that held a matched transfer), pruned beyond the reorg window.
create table evm_block_hashes (
  chain_id bigint not null,
  block_number bigint not null,
  block_hash text not null,
  primary key (chain_id, block_number)
);

-- Transfers of catalogue tokens to watched addresses, by natural key. A
-- transfer of another catalogue token than the issuance's is recorded with
-- credited = false: visible, never handed to the ledger.
create table evm_transfers (
  chain_id bigint not null,
  tx_hash text not null,
  log_index integer not null,
  block_number bigint not null,
  block_hash text not null,
  token text not null,
  from_address text not null,
  to_address text not null,
  amount numeric(78,0) not null,
  issuance_id uuid not null,
  status text not null check (status in ('observed', 'confirmed', 'dropped', 'reverted')),
  credited boolean not null,
  -- The last status the ledger was told (null: never told). `ledger_due` is
  -- true while the ledger lags `status`; the watcher drains it after each commit.
  ledger_status text check (ledger_status in ('observed', 'confirmed', 'reverted')),
  ledger_due boolean not null,
  observed_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (chain_id, tx_hash, log_index)
);
-- Reorg candidates (transfers above the common ancestor) and pending confirmations.
create index evm_transfers_block on evm_transfers(chain_id, block_number);
create index evm_transfers_observed on evm_transfers(chain_id, block_number) where status = 'observed';
create index evm_transfers_ledger_due on evm_transfers(chain_id, block_number, log_index) where ledger_due;
create index evm_transfers_issuance on evm_transfers(issuance_id);
