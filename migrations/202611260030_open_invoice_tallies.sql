-- Issue 13 item 1, decision 0005 (amended): how many invoices a merchant has
-- open (not cancelled, not paid), kept by triggers so that the shared gate
-- reads a few small rows instead of counting every open invoice. Open is what
-- whereOpenSingleInvoice / whereOpenInvoiceGroup say: an ungrouped invoice, or
-- a group (it counts once). Expiry is not subtracted until the expiry job
-- cancels the invoice, so the tally is never below the exact active count;
-- the exclusive gate still counts exactly.
--
-- One row per merchant, mode and slot; a transaction adds to the slot of its
-- database connection (pg_backend_pid), so concurrent creations of one
-- merchant write different rows and do not queue on one counter. No foreign
-- key: only these triggers write the table, always for an issuance's merchant,
-- and a key check would cost every creation another lookup.
create table open_invoice_tallies (
  merchant_id uuid not null,
  sandbox boolean not null,
  slot smallint not null,
  open integer not null,
  primary key (merchant_id, sandbox, slot)
);

create function ivory_add_open_invoices(merchant uuid, in_sandbox boolean, delta integer) returns void language plpgsql as $$
begin
  if delta = 0 then
    return;
  end if;
  insert into open_invoice_tallies as tally (merchant_id, sandbox, slot, open)
  values (merchant, in_sandbox, pg_backend_pid() % 32, delta)
  on conflict (merchant_id, sandbox, slot) do update set open = tally.open + excluded.open;
end
$$;

-- "Open" as whereOpenSingleInvoice / whereOpenInvoiceGroup say it, as 1 or 0.
create function ivory_is_open_issuance(candidate issuances) returns integer language sql immutable as $$
  select case when candidate.kind = 'invoice' and candidate.group_id is null and candidate.cancelled_at is null and candidate.funded_at is null then 1 else 0 end
$$;

create function ivory_is_open_group(candidate issuance_groups) returns integer language sql immutable as $$
  select case when candidate.kind = 'invoice' and candidate.cancelled_at is null and candidate.paid_issuance_id is null then 1 else 0 end
$$;

-- A row that was open (was_open 1) or is open (is_open 1) before and after a
-- change; the missing side of an insert or a delete is null with 0.
create function ivory_move_open_invoice(
  was_merchant uuid, was_sandbox boolean, was_open integer,
  is_merchant uuid, is_sandbox boolean, is_open integer
) returns void language plpgsql as $$
begin
  if was_merchant = is_merchant and was_sandbox = is_sandbox then
    perform ivory_add_open_invoices(is_merchant, is_sandbox, is_open - was_open);
    return;
  end if;
  if was_open = 1 then
    perform ivory_add_open_invoices(was_merchant, was_sandbox, -1);
  end if;
  if is_open = 1 then
    perform ivory_add_open_invoices(is_merchant, is_sandbox, 1);
  end if;
end
$$;

create function ivory_tally_open_issuances() returns trigger language plpgsql as $$
begin
  -- Creation is the hot path: one upsert, no further call.
  if tg_op = 'INSERT' then
    if ivory_is_open_issuance(new) = 1 then
      insert into open_invoice_tallies as tally (merchant_id, sandbox, slot, open)
      values (new.merchant_id, new.sandbox, pg_backend_pid() % 32, 1)
      on conflict (merchant_id, sandbox, slot) do update set open = tally.open + 1;
    end if;
  elsif tg_op = 'DELETE' then
    perform ivory_move_open_invoice(old.merchant_id, old.sandbox, ivory_is_open_issuance(old), null, null, 0);
  else
    perform ivory_move_open_invoice(old.merchant_id, old.sandbox, ivory_is_open_issuance(old), new.merchant_id, new.sandbox, ivory_is_open_issuance(new));
  end if;
  return null;
end
$$;

create function ivory_tally_open_groups() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform ivory_move_open_invoice(null, null, 0, new.merchant_id, new.sandbox, ivory_is_open_group(new));
  elsif tg_op = 'DELETE' then
    perform ivory_move_open_invoice(old.merchant_id, old.sandbox, ivory_is_open_group(old), null, null, 0);
  else
    perform ivory_move_open_invoice(old.merchant_id, old.sandbox, ivory_is_open_group(old), new.merchant_id, new.sandbox, ivory_is_open_group(new));
  end if;
  return null;
end
$$;

-- Only the columns that decide "open" wake the update triggers: the
-- allocation worker, the ledger's received/credited and the view stamps do not.
create trigger issuances_open_tally_insert after insert on issuances
  for each row execute function ivory_tally_open_issuances();
create trigger issuances_open_tally_update after update of kind, group_id, cancelled_at, funded_at, merchant_id, sandbox on issuances
  for each row execute function ivory_tally_open_issuances();
create trigger issuances_open_tally_delete after delete on issuances
  for each row execute function ivory_tally_open_issuances();
create trigger issuance_groups_open_tally_insert after insert on issuance_groups
  for each row execute function ivory_tally_open_groups();
create trigger issuance_groups_open_tally_update after update of kind, cancelled_at, paid_issuance_id, merchant_id, sandbox on issuance_groups
  for each row execute function ivory_tally_open_groups();
create trigger issuance_groups_open_tally_delete after delete on issuance_groups
  for each row execute function ivory_tally_open_groups();

insert into open_invoice_tallies (merchant_id, sandbox, slot, open)
select merchant_id, sandbox, 0, count(*)::integer
from (
  select merchant_id, sandbox from issuances
  where kind = 'invoice' and group_id is null and cancelled_at is null and funded_at is null
  union all
  select merchant_id, sandbox from issuance_groups
  where kind = 'invoice' and cancelled_at is null and paid_issuance_id is null
) as open_invoices
group by merchant_id, sandbox;
