-- Issue 13 item 1, decision 0019: GET /checkout/{public_id} answers from a
-- per-process cache while the stamps of every row its answer is made of are
-- unchanged. Triggers keep the stamps, so no code path can change a row the
-- checkout shows without the cached answer going stale: any update of an
-- issuance, its group, its shop or its merchant moves that row's stamp, and a
-- statement writing or changing transfers moves their issuances' (the answer shows the
-- latest confirmed transfer's hash). The ledger holds the issuance lock when it
-- writes a transfer (lock order issuance → transfer), so the cascade takes no
-- lock out of order.
alter table issuances add column view_stamp bigint not null default 0;
alter table issuance_groups add column view_stamp bigint not null default 0;
alter table shops add column view_stamp bigint not null default 0;
alter table merchants add column view_stamp bigint not null default 0;

create function ivory_next_view_stamp() returns trigger language plpgsql as $$
begin
  new.view_stamp := old.view_stamp + 1;
  return new;
end
$$;

create trigger issuances_view_stamp before update on issuances
  for each row execute function ivory_next_view_stamp();
create trigger issuance_groups_view_stamp before update on issuance_groups
  for each row execute function ivory_next_view_stamp();
create trigger shops_view_stamp before update on shops
  for each row execute function ivory_next_view_stamp();
create trigger merchants_view_stamp before update on merchants
  for each row execute function ivory_next_view_stamp();

-- Once per statement, not per row: a payout attaching a deposit's many
-- unswept transfers moves the issuance's stamp once. (A trigger with a
-- transition table takes one event, hence two triggers.)
create function ivory_transfers_move_issuance_stamps() returns trigger language plpgsql as $$
begin
  update issuances set view_stamp = view_stamp
  where id in (select distinct issuance_id from changed_transfers);
  return null;
end
$$;

create trigger transfers_inserted_view_stamp after insert on transfers
  referencing new table as changed_transfers
  for each statement execute function ivory_transfers_move_issuance_stamps();
create trigger transfers_updated_view_stamp after update on transfers
  referencing new table as changed_transfers
  for each statement execute function ivory_transfers_move_issuance_stamps();
