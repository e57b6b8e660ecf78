-- The dashboard overview's "deposits waiting for a sweep" (issue 25): a shop's deposits that
-- hold an unswept balance, found without reading every issuance of the shop.
create index issuances_unswept_deposits on issuances(shop_id) where kind = 'deposit' and unswept > 0;
