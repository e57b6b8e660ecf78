-- Merchants: the service wallet a shop can pay into (SPEC "Shop" payout_target
-- `wallet`, solana_payout_target / tron_payout_target `wallet`), one address
-- per network family, given by operator staff (ivory admin wallet; decision
-- 0017: Ivory holds no keys for it). A family without a row is not set up:
-- `wallet_not_ready` on EVM, `*_bridge_unavailable` on Solana and Tron.

create table merchant_service_wallets (
  merchant_id uuid not null references merchants(id),
  family text not null check (family in ('evm', 'solana', 'tron')),
  address text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (merchant_id, family)
);
-- Recipient checks refuse any service wallet address of the family.
create index merchant_service_wallets_address on merchant_service_wallets(family, address);

-- SPEC "Errors" merchant_network_disabled: "Tron not enabled for the merchant".
-- On unless operator staff turn it off (ivory admin tron).
alter table merchants add column tron_enabled boolean not null default true;
