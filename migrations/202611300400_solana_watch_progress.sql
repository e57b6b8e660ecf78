-- What the operator's network status shows as a Solana network's last_scanned_block (issue 24):
-- Solana is read per token account, not by block, so there is no whole-chain cursor. Instead the
-- watcher stores, after each pass that read every watched account and settled every observed
-- transfer's fate, the finalized slot it read before that pass began: every transfer to a
-- watched address finalized at or before that slot is recorded. One row per network, written
-- once per pass.
create table solana_watch_progress (
  chain_id bigint primary key,
  scanned_finalized_slot bigint not null,
  updated_at timestamptz not null
);
