-- The scan pipeline's tables become family-neutral (issue 21 item 2, issue 22 item 1;
-- decision 0027): EVM, Tron and Solana sources feed the same cursor and the same transfer
-- inbox (`src/chains/ingest/`). Renamed, not copied: every row, its ledger_due flag included,
-- carries over. The old names stay as simple (updatable) views, so that a process of the
-- previous version still running during a rolling upgrade reads and writes the same rows.

alter table evm_scan_cursors rename to chain_scan_cursors;
-- One cursor per (network, stream): '' for a source that reads the whole chain by block range
-- (EVM, Tron); one stream per address for a source that reads signatures per address (Solana),
-- whose cursor is the newest signature read (`after_id`).
alter table chain_scan_cursors add column stream text not null default '';
alter table chain_scan_cursors add column after_id text;
alter table chain_scan_cursors drop constraint evm_scan_cursors_pkey;
alter table chain_scan_cursors add primary key (chain_id, stream);

alter table evm_transfers rename to chain_transfers;
-- The natural key (network, transaction id, position): position is the log index on EVM and
-- Tron, and instruction_index * 65536 + inner_instruction_index + 1 on Solana (0 for a
-- top-level instruction), which keeps it one integer as in the ledger's `transfers.log_index`.
alter table chain_transfers rename column tx_hash to tx_id;
alter table chain_transfers rename column log_index to position;
alter index evm_transfers_block rename to chain_transfers_block;
alter index evm_transfers_observed rename to chain_transfers_observed;
alter index evm_transfers_ledger_due rename to chain_transfers_ledger_due;
alter index evm_transfers_issuance rename to chain_transfers_issuance;

create view evm_scan_cursors as
  select chain_id, next_block, head_block, updated_at from chain_scan_cursors where stream = '';
create view evm_transfers as
  select chain_id, tx_id as tx_hash, position as log_index, block_number, block_hash, token, from_address, to_address, amount,
    issuance_id, status, credited, ledger_status, ledger_due, observed_at, updated_at
  from chain_transfers;
