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

create function ivory_tally_open_issuances() returns trigger language plpgsql as $$
declare
  was_open integer := 0;
  is_open integer := 0;
begin
  -- Creation is the hot path: one upsert, no further call.
  if tg_op = 'INSERT' then
    if new.kind = 'invoice' and new.group_id is null and new.cancelled_at is null and new.funded_at is null then
      insert into open_invoice_tallies as tally (merchant_id, sandbox, slot, open)
      values (new.merchant_id, new.sandbox, pg_backend_pid() % 32, 1)
      on conflict (merchant_id, sandbox, slot) do update set open = tally.open + 1;
    end if;
    return null;
  end if;
  if old.kind = 'invoice' and old.group_id is null and old.cancelled_at is null and old.funded_at is null then
    was_open := 1;
  end if;
  if tg_op = 'DELETE' then
    perform ivory_add_open_invoices(old.merchant_id, old.sandbox, -was_open);
    return null;
  end if;
  if new.kind = 'invoice' and new.group_id is null and new.cancelled_at is null and new.funded_at is null then
    is_open := 1;
  end if;
  if old.merchant_id = new.merchant_id and old.sandbox = new.sandbox then
    perform ivory_add_open_invoices(new.merchant_id, new.sandbox, is_open - was_open);
  else
    perform ivory_add_open_invoices(old.merchant_id, old.sandbox, -was_open);
    perform ivory_add_open_invoices(new.merchant_id, new.sandbox, is_open);
  end if;
  return null;
end
$$;

create function ivory_tally_open_groups() returns trigger language plpgsql as $$
declare
  was_open integer := 0;
  is_open integer := 0;
begin
  if tg_op <> 'INSERT' and old.kind = 'invoice' and old.cancelled_at is null and old.paid_issuance_id is null then
    was_open := 1;
  end if;
  if tg_op <> 'DELETE' and new.kind = 'invoice' and new.cancelled_at is null and new.paid_issuance_id is null then
    is_open := 1;
  end if;
  if tg_op = 'DELETE' then
    perform ivory_add_open_invoices(old.merchant_id, old.sandbox, -was_open);
  elsif tg_op = 'INSERT' then
    perform ivory_add_open_invoices(new.merchant_id, new.sandbox, is_open);
  elsif old.merchant_id = new.merchant_id and old.sandbox = new.sandbox then
    perform ivory_add_open_invoices(new.merchant_id, new.sandbox, is_open - was_open);
  else
    perform ivory_add_open_invoices(old.merchant_id, old.sandbox, -was_open);
    perform ivory_add_open_invoices(new.merchant_id, new.sandbox, is_open);
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
