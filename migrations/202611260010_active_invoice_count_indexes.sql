-- Issue 13 item 1, decision 0019: the SPEC "Limits" count of a merchant's
-- active invoices runs on every invoice creation. It filters on the merchant,
-- the mode and `expires_at > now`; the old partial indexes lacked expires_at,
-- so the planner preferred the expiry job's (expires_at) indexes and filtered
-- every open invoice of every merchant by merchant. With expires_at in the key,
-- the count is one range of the merchant's open invoices, read from the index
-- alone. They replace the (merchant_id, sandbox) ones, whose every use they serve.
create index issuances_open_invoices on issuances(merchant_id, sandbox, expires_at)
  where kind = 'invoice' and group_id is null and cancelled_at is null and funded_at is null;
drop index issuances_active_invoices;
create index issuance_groups_open_invoices on issuance_groups(merchant_id, sandbox, expires_at)
  where kind = 'invoice' and cancelled_at is null and paid_issuance_id is null;
drop index issuance_groups_active;
