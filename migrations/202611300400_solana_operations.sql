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

-- The allocation no longer waits for a deposit token account's creation to reach `confirmed`
-- (it held the shared allocation job for up to 30 s per issuance): it sends the relayer's
-- idempotent creation, notes it here, and answers "pending"; a later pass opens the issuance
-- once the account exists, and sends a new creation only when this one can no longer land (its
-- blockhash expired below the confirmed block height, or it failed). A crash between sending and
-- noting only costs a second, harmless, creation.
alter table solana_deposit_addresses add column creation_signature text;
alter table solana_deposit_addresses add column creation_last_valid_block_height bigint;
