-- Issue 13 item 1, decision 0019 ("Invoice creation in one statement"): what
-- lets a process that has already read a shop's issuance terms create an
-- invoice in a single statement, outside any explicit transaction.
--
-- 1. Everything the terms are made of moves the merchant's view stamp: the
--    merchant and shop rows already do (202611260020); fee terms and service
--    wallets live in tables of their own, so a change there touches the
--    merchant row, whose trigger then moves its stamp.
create function ivory_touch_merchant_of_row() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.merchant_id is distinct from new.merchant_id) then
    update merchants set view_stamp = view_stamp where id = old.merchant_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    update merchants set view_stamp = view_stamp where id = new.merchant_id;
  end if;
  return null;
end
$$;

create trigger merchant_fee_terms_move_merchant_stamp after insert or update or delete on merchant_fee_terms
  for each row execute function ivory_touch_merchant_of_row();
create trigger merchant_service_wallets_move_merchant_stamp after insert or update or delete on merchant_service_wallets
  for each row execute function ivory_touch_merchant_of_row();

-- 2. Taking a merchant's active-invoice gate (sandbox and live apart), said
--    once for the access read of a transaction (src/limits) and for the
--    function below. A hash collision between two merchants only makes them
--    wait for each other; it never lets a count be wrong.
create function ivory_take_invoice_gate(merchant uuid, in_sandbox boolean, exclusive boolean) returns void
language plpgsql volatile as $$
declare
  gate_key integer := hashtext(merchant::text || case when in_sandbox then ':sandbox' else ':live' end);
begin
  if exclusive then
    perform pg_advisory_xact_lock(7201626, gate_key);
  else
    perform pg_advisory_xact_lock_shared(7201626, gate_key);
  end if;
end
$$;

-- 3. The terms a process kept are still the stored ones: the shop and its
--    merchant have the stamps they were read with. Holds the merchant FOR KEY
--    SHARE to the end of the transaction, as the access read does (a block
--    either waits for the creation or is seen here: its update moves the
--    stamp, and a row lock that waited re-reads the newest row). Returns the
--    merchant; raises IV001 when the terms moved or the shop is gone.
create function ivory_lock_current_issuing_shop(shop uuid, shop_stamp bigint, merchant_stamp bigint) returns uuid
language plpgsql volatile as $$
declare
  merchant uuid;
begin
  select merchants.id into merchant
  from shops join merchants on merchants.id = shops.merchant_id
  where shops.id = shop and shops.view_stamp = shop_stamp and merchants.view_stamp = merchant_stamp
  for key share of merchants;
  if merchant is null then
    raise exception using errcode = 'IV001', message = 'the issuance terms kept for this shop are no longer current';
  end if;
  return merchant;
end
$$;

-- 4. The shared active-invoice gate inside one statement (decision 0005): the
--    lock first, then the tallies read by a statement of its own. In READ
--    COMMITTED each statement of a volatile PL/pgSQL function takes a new
--    snapshot, so the read follows the lock exactly as the second statement
--    of a transaction does — a creation that waited for an exclusive holder
--    counts what that holder committed. Raises IV002 when the count is too
--    near the limit for the shared gate (open + this one + max_connections
--    above it): the caller then takes the exclusive gate, which counts exactly.
create function ivory_enter_shared_invoice_gate(merchant uuid, in_sandbox boolean, invoice_limit bigint) returns bigint
language plpgsql volatile as $$
declare
  open_invoices bigint;
begin
  perform ivory_take_invoice_gate(merchant, in_sandbox, false);
  select coalesce(sum(tally.open), 0) into open_invoices
  from open_invoice_tallies as tally
  where tally.merchant_id = merchant and tally.sandbox = in_sandbox;
  if open_invoices + 1 + current_setting('max_connections')::bigint > invoice_limit then
    raise exception using errcode = 'IV002', message = 'near the active-invoice limit: the exclusive gate decides';
  end if;
  return open_invoices;
end
$$;
