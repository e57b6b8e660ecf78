-- The payout worker (issuances `send-payouts.job.ts`).

-- A payout being sent holds a lease: status `sending` with next_attempt_at at
-- the lease's end. A worker that died mid-send leaves the row to be claimed
-- again when the lease runs out, so the due index covers `sending` too.
drop index payouts_due;
create index payouts_due on payouts(next_attempt_at) where status in ('scheduled', 'waiting_gas', 'sending');

-- The payout.confirmed event, which payout.reverted points at
-- (chain_event.reference_event_id), as transfers.confirmed_event_id does.
alter table payouts add column confirmed_event_id uuid;
