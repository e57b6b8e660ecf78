-- x402 on invoices (issue 26 item 2, docs/decisions/0035): one row per EIP-3009 authorisation
-- Ivory's relayer was asked to settle. The unique key is the token's own replay key
-- (authorizer, nonce) on that token and network: the insert is the claim, so two concurrent
-- retries of one authorisation cannot both reach the relayer. A claim whose call was never signed
-- is deleted again (the payer may retry it); a signed one stays, with its transaction.
-- Nothing here is money received: the watcher credits the Transfer the call makes, like any other.
create table x402_authorizations (
  id uuid primary key,
  chain_id bigint not null,
  -- Checksummed token contract and authorizer (the authorisation's `from`).
  token text not null,
  authorizer text not null,
  -- bytes32, 0x + 64 lower-case hex digits.
  nonce text not null,
  issuance_id uuid not null references issuances(id),
  value numeric(78, 0) not null,
  -- claimed: verified and reserved, not signed yet; sent: signed (tx_hash set), receipt unknown;
  -- settled: mined with the expected Transfer; failed: mined and reverted, or otherwise refused after signing.
  status text not null check (status in ('claimed', 'sent', 'settled', 'failed')),
  tx_hash text,
  gas_used numeric(78, 0),
  error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (chain_id, token, authorizer, nonce)
);

create index x402_authorizations_issuance on x402_authorizations (issuance_id, status);
