-- Rescans (issue 22 item 5): the operator asks a network's watcher to read a range of blocks
-- it already scanned again and record what it missed (a node that answered too little, an
-- address allocated late). One at a time per network; the row goes when the range is done.
create table chain_rescans (
  chain_id bigint primary key,
  from_block bigint not null,
  to_block bigint not null,
  next_block bigint not null,
  requested_at timestamptz not null,
  updated_at timestamptz not null,
  check (from_block <= to_block and next_block >= from_block)
);
