-- Archiving a shop (decision 0038) takes the shop row FOR UPDATE, checks that
-- nothing in the shop is still open, and sets archived_at. A creation must
-- therefore hold the shop row too, not only its merchant: FOR KEY SHARE of
-- shops makes an archive wait for a creation in flight (and then count its
-- invoice), and makes a creation that waited for an archive re-read the
-- archived row (a row lock that waited re-reads the newest row; the shop's
-- stamp has moved, so the kept terms are refused with IV001 and the full path
-- answers shop_archived). Otherwise as migration 202611260040.
create or replace function ivory_lock_current_issuing_shop(shop uuid, shop_stamp bigint, merchant_stamp bigint) returns uuid
language plpgsql volatile as $$
declare
  merchant uuid;
begin
  select merchants.id into merchant
  from shops join merchants on merchants.id = shops.merchant_id
  where shops.id = shop and shops.view_stamp = shop_stamp and merchants.view_stamp = merchant_stamp
  for key share of merchants, shops;
  if merchant is null then
    raise exception using errcode = 'IV001', message = 'the issuance terms kept for this shop are no longer current';
  end if;
  return merchant;
end
$$;
