-- Several payouts in one sweep transaction (issue 22 item 3, `sweepBatch`; docs/decisions/0037).
--
-- A payout attempt is one nonce of the network's relayer: its first signature and its fee bumps
-- all replay the same call, so they sweep the same forwarders. The payouts an attempt sweeps
-- are its members, one row each, in the order of the call's `Terms[]` (`position`). A single
-- sweep is an attempt with one member. Every attempt signed from now on has its members here,
-- written in the same database transaction as the signed transaction and the nonce.
create table evm_payout_members (
  chain_id bigint not null,
  relayer text not null,
  nonce bigint not null,
  payout_id uuid not null,
  position integer not null,
  primary key (chain_id, relayer, nonce, payout_id),
  unique (chain_id, relayer, nonce, position)
);
-- A payout's attempts, newest first.
create index evm_payout_members_payout on evm_payout_members(payout_id, nonce desc);

-- Attempts signed before: one payout each.
insert into evm_payout_members (chain_id, relayer, nonce, payout_id, position)
select distinct chain_id, relayer, nonce, payout_id, 0 from evm_payout_transactions;

-- The transaction row names its payout only for a single sweep; a batch's row has none (its
-- members are the rows above). Kept filled for single sweeps so that readers of the previous
-- version still find them.
alter table evm_payout_transactions alter column payout_id drop not null;
