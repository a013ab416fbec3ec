-- Gatehouse storage, schema version 7: fair shares of the client registry (issue 41: no anonymous
-- caller can deny service to anyone else). Run by `migrate(pool, { schema })` inside one
-- transaction with `search_path` set to the target schema, after 006_kv_state. It adds to
-- `registered_clients`:
--   * `partition`: who pays for the registration (`ClientRegistryLimits.partition`: the
--     registering request's client network, `net:<digest of its /24 or /48>`). When the instance
--     holds `dynamicRegistration.maxClients` live registrations, a new one from a partition holding
--     fewer than the heaviest partition deletes that partition's oldest never-used registration;
--   * `used_at`: when the registration was last used (`touchClient`, epoch ms); NULL: never used,
--     which is evicted first.
-- Upgrade path: existing rows get no partition and no use (both NULL). Rows without a partition
-- count together as one partition (the unpartitioned registrations) and are never evicted; they
-- lapse (`expires_at`) as before, and their first use sets `used_at`. Adding nullable columns
-- rewrites no row. Run it before processes of this version serve: their saves and touches name the
-- new columns. A process of an earlier version still serving afterwards keeps working (its rows
-- have no partition, so they are never evicted).

ALTER TABLE registered_clients
  ADD COLUMN partition text,
  ADD COLUMN used_at   bigint;
-- A full registry counts each partition's live registrations and picks the heaviest one's oldest.
CREATE INDEX registered_clients_partition ON registered_clients (instance_id, partition, registered_at)
  WHERE partition IS NOT NULL;
