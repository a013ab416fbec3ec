-- Gatehouse storage, schema version 5 (host contract v3): the key-value store (`GatehouseStorage.kv`),
-- the short-lived state of pushed authorization requests, device codes and interactions.
-- Run by `migrate(pool, { schema })` inside one transaction with `search_path` set to the target
-- schema, after 004_user_grants. It only creates a table: no existing row is read or rewritten, and
-- no lock is taken on an existing table, so it can run while older processes keep serving.
-- `key` and `value` are the caller's strings with `%` and U+0000 percent-encoded (text cannot hold
-- U+0000); times are epoch milliseconds, and the sweeper deletes rows from `expires_at` on.

CREATE TABLE key_values (
  instance_id text   NOT NULL,
  key         text   NOT NULL,
  value       text   NOT NULL,
  expires_at  bigint NOT NULL,
  PRIMARY KEY (instance_id, key)
);
CREATE INDEX key_values_expires_at ON key_values (expires_at);
