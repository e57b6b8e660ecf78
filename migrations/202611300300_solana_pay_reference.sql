-- Solana Pay `reference` per issuance (issue 24 item 7, decision 0039): a random 32-byte public key
-- (base58), generated at allocation and put in the page's transfer request; a Solana Pay wallet adds
-- it to the transfer as a read-only account, and the watcher reads its signatures while the issuance
-- is open. Null for addresses allocated before this migration (their request carries no reference).
alter table solana_deposit_addresses add column reference text;
create unique index solana_deposit_addresses_reference on solana_deposit_addresses(reference);
