-- The chain watcher loads the addresses it matches transfers against
-- incrementally, by (updated_at, id), per network (issuances
-- `listWatchedAddresses`): an index range scan instead of a table scan.
create index issuances_watched on issuances(chain_id, updated_at, id)
  where address is not null and sandbox = false and family = 'evm';
