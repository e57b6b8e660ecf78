-- Merchants: branding images served publicly by GET /assets/{id} (SPEC "Public").
-- Bytes live in the database so that an embedded install needs no file store;
-- an asset is immutable once written (a new logo is a new row), which is what
-- lets GET /assets/{id} answer with a year-long immutable cache header.

create table branding_assets (
  id uuid primary key,
  shop_id uuid not null references shops(id),
  content_type text not null,
  bytes bytea not null,
  sha256 text not null,
  created_at timestamptz not null default now()
);
create index branding_assets_shop on branding_assets(shop_id);
