-- Issue 13 item 2, decision 0019: a replayed idempotent answer is the bytes
-- that were sent, not JSON re-serialized from jsonb (which reorders keys).
-- Rows written before this migration keep response_bytes null and are still
-- replayed from response_body; new rows keep 'null' there.
alter table idempotency_records
  add column response_bytes bytea,
  add column response_content_type text,
  -- The stored bytes are sealed with SECRET_KEY when the answer shows a secret
  -- (a new API key token, a webhook signing secret).
  add column response_sealed boolean not null default false;
