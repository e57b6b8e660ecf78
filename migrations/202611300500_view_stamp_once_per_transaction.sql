-- Decision 0019's stamps, cheaper for the ledger's batches (issue 22): a statement
-- writing transfers moves the stamps of their issuances only where this transaction
-- has not already updated the issuance row. Such a row's stamp has moved already (its
-- own trigger), and the checkout compares committed stamps, so a second move shows
-- nothing new. The batch ledger updates its issuances before writing their transfers,
-- which spared 200 issuance updates a statement: 15 of the 22 ms of inserting a batch's
-- transfers on PGlite. A row updated in a savepoint carries the savepoint's id and is
-- moved again (harmless); one whose savepoint rolled back is old again and is moved.
create or replace function ivory_transfers_move_issuance_stamps() returns trigger language plpgsql as $$
begin
  update issuances set view_stamp = view_stamp
  where id in (select distinct issuance_id from changed_transfers)
    and xmin <> pg_current_xact_id()::xid;
  return null;
end
$$;
