-- Chain ids that do not fit a 32-bit integer (issue 23 item 2): Tron's Nile test network is
-- 3448148188 and Shasta 2494104990, EVM networks such as Palm 11297108109. An `integer` column
-- made invoice creation on such a network fail with "out of range for type integer" (a 500).
-- Every chain_id column is now a bigint, as the watcher's tables already were. The application
-- reads them back as JavaScript numbers (platform/database/chain-id-plugin.ts); the catalogue
-- refuses a chain id above Number.MAX_SAFE_INTEGER, which a number cannot carry exactly.
alter table wallet_challenges alter column chain_id type bigint;
alter table issuances alter column chain_id type bigint;
alter table payouts alter column chain_id type bigint;
alter table transfers alter column chain_id type bigint;
alter table evm_relayers alter column chain_id type bigint;
alter table evm_forwarders alter column chain_id type bigint;
alter table evm_payout_transactions alter column chain_id type bigint;
alter table merchant_fee_terms alter column chain_id type bigint;
