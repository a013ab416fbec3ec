-- Gatehouse storage, schema version 3 (storage contract v2).
-- Run by `migrate(pool, { schema })` inside one transaction with `search_path` set to the target
-- schema, after 001_init and 002_revoked_subjects. It:
--   * adds `instance_id` to every table and to every primary key, so one schema serves any number of
--     instances and no lookup of one instance can reach another's rows. Rows written by round 1 get
--     the instance id 'default', the id `postgresStorage()` uses, so existing refresh tokens,
--     sessions, consents and revocations keep working after the upgrade;
--   * adds an `attrs` JSONB column to codes, refresh tokens, sessions and consents: the record's
--     optional fields (audience, OpenID Connect attributes, `ext`), so new optional fields need no
--     migration;
--   * turns refresh tokens' `user_id` into a subject (`subject_kind` 'user' | 'client',
--     `subject_id`), so a client acting for itself has a place;
--   * creates `registered_clients` (RFC 7591 registrations) and `replay_ids` (single-use assertion ids).
-- The instance id has no default afterwards: the engine always names it.

ALTER TABLE authorization_codes
  ADD COLUMN instance_id text NOT NULL DEFAULT 'default',
  ADD COLUMN attrs jsonb NOT NULL DEFAULT '{}';
ALTER TABLE authorization_codes ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE authorization_codes DROP CONSTRAINT authorization_codes_pkey;
ALTER TABLE authorization_codes ADD PRIMARY KEY (instance_id, code_hash);

ALTER TABLE refresh_tokens
  ADD COLUMN instance_id text NOT NULL DEFAULT 'default',
  ADD COLUMN subject_kind text NOT NULL DEFAULT 'user' CHECK (subject_kind IN ('user', 'client')),
  ADD COLUMN attrs jsonb NOT NULL DEFAULT '{}';
ALTER TABLE refresh_tokens RENAME COLUMN user_id TO subject_id;
ALTER TABLE refresh_tokens ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE refresh_tokens ALTER COLUMN subject_kind DROP DEFAULT;
ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_pkey;
ALTER TABLE refresh_tokens ADD PRIMARY KEY (instance_id, token_hash);

ALTER TABLE revoked_grants ADD COLUMN instance_id text NOT NULL DEFAULT 'default';
ALTER TABLE revoked_grants ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE revoked_grants DROP CONSTRAINT revoked_grants_pkey;
ALTER TABLE revoked_grants ADD PRIMARY KEY (instance_id, grant_id);

ALTER TABLE revoked_access_tokens ADD COLUMN instance_id text NOT NULL DEFAULT 'default';
ALTER TABLE revoked_access_tokens ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE revoked_access_tokens DROP CONSTRAINT revoked_access_tokens_pkey;
ALTER TABLE revoked_access_tokens ADD PRIMARY KEY (instance_id, jti);

ALTER TABLE revoked_subjects ADD COLUMN instance_id text NOT NULL DEFAULT 'default';
ALTER TABLE revoked_subjects ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE revoked_subjects DROP CONSTRAINT revoked_subjects_pkey;
ALTER TABLE revoked_subjects ADD PRIMARY KEY (instance_id, user_id);

ALTER TABLE sessions
  ADD COLUMN instance_id text NOT NULL DEFAULT 'default',
  ADD COLUMN attrs jsonb NOT NULL DEFAULT '{}';
ALTER TABLE sessions ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey;
ALTER TABLE sessions ADD PRIMARY KEY (instance_id, id_hash);

ALTER TABLE consents
  ADD COLUMN instance_id text NOT NULL DEFAULT 'default',
  ADD COLUMN attrs jsonb NOT NULL DEFAULT '{}';
ALTER TABLE consents ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE consents DROP CONSTRAINT consents_pkey;
ALTER TABLE consents ADD PRIMARY KEY (instance_id, user_id, client_id);

ALTER TABLE rate_limits ADD COLUMN instance_id text NOT NULL DEFAULT 'default';
ALTER TABLE rate_limits ALTER COLUMN instance_id DROP DEFAULT;
ALTER TABLE rate_limits DROP CONSTRAINT rate_limits_pkey;
ALTER TABLE rate_limits ADD PRIMARY KEY (instance_id, key);

-- Clients registered with an instance (RFC 7591, client ID metadata documents). `client` is the
-- ClientRecord as JSON; `expires_at` is NULL for a registration kept until deleted.
CREATE TABLE registered_clients (
  instance_id   text NOT NULL,
  client_id     text NOT NULL,
  client        jsonb NOT NULL,
  registered_at bigint NOT NULL,
  expires_at    bigint,
  ext           jsonb,
  PRIMARY KEY (instance_id, client_id)
);
CREATE INDEX registered_clients_expires_at ON registered_clients (expires_at) WHERE expires_at IS NOT NULL;

-- Single-use ids (client assertion `jti`s, DPoP proofs), remembered until they expire.
CREATE TABLE replay_ids (
  instance_id text NOT NULL,
  id          text NOT NULL,
  expires_at  bigint NOT NULL,
  PRIMARY KEY (instance_id, id)
);
CREATE INDEX replay_ids_expires_at ON replay_ids (expires_at);
