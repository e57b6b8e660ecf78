-- Issue 20 item 5: GET /shops/{id}/issuances lists a shop's ungrouped
-- issuances and its groups, newest first by (created_at, id). The first page
-- and every later one (keyset, not offset) already read
-- `issuances_shop (shop_id, created_at desc, id desc)` and
-- `issuance_groups_shop`, filtered by the other conditions, so a page costs
-- its rows plus the rows a filter skips. Two filters can skip almost all of a
-- shop's rows and are asked for often enough to deserve their own order:
--
-- - external_id: "the invoice of my order 123", one row among 100,000;
-- - status: the few `funded` or `reconciling` ones among many settled.
--
-- The other filters (kind, cancelled, chain_id, token, created_after/before)
-- are read along the shop's order: a creation-time bound is an index range
-- already, and the rest are rarely selective enough to repay an index on the
-- invoice-creation hot path (decision 0019). A group's status is derived from
-- its options (src/issuances/issuance-view.ts `groupStatus`), so only
-- ungrouped rows get the status order.
create index issuances_shop_external_id on issuances(shop_id, external_id, created_at desc, id desc)
  where group_id is null and external_id is not null;
create index issuance_groups_shop_external_id on issuance_groups(shop_id, external_id, created_at desc, id desc)
  where external_id is not null;
create index issuances_shop_status on issuances(shop_id, status, created_at desc, id desc)
  where group_id is null;
