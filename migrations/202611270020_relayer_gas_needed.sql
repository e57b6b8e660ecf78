-- What the relayer must hold before a payout parked in gas.wait can go out
-- (issue 22 item 2): written when a send finds the relayer short, cleared by
-- the payout tracker once the relayer's balance covers it, at which point the
-- waiting payouts are due at once instead of after the gas retry delay.
-- Null: nothing is waiting for funds.
alter table evm_relayers add column gas_needed_wei numeric(78, 0);
