-- Gatehouse storage, schema version 1.
-- Run by `migrate(pool, { schema })` inside one transaction with `search_path` set to the target
-- schema, so names here are unqualified. Times are epoch milliseconds (bigint), as Gatehouse passes
-- them; secrets (codes, refresh tokens, session ids) are stored only as SHA-256 hashes.
-- Every lookup the engine makes is by primary key; the `expires_at` indexes serve the sweeper.

CREATE TABLE authorization_codes (
  code_hash      text PRIMARY KEY,
  grant_id       text NOT NULL,
  client_id      text NOT NULL,
  user_id        text NOT NULL,
  redirect_uri   text NOT NULL,
  scope          text NOT NULL,
  code_challenge text,
  auth_time      bigint NOT NULL,
  expires_at     bigint NOT NULL,
  consumed_at    bigint
);
CREATE INDEX authorization_codes_expires_at ON authorization_codes (expires_at);

CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id   text NOT NULL,
  client_id  text NOT NULL,
  user_id    text NOT NULL,
  scope      text NOT NULL,
  issued_at  bigint NOT NULL,
  expires_at bigint NOT NULL,
  rotated_at bigint
);
CREATE INDEX refresh_tokens_expires_at ON refresh_tokens (expires_at);

-- Grant and access-token revocations, checked on every bearer request (one indexed probe each).
CREATE TABLE revoked_grants (
  grant_id   text PRIMARY KEY,
  expires_at bigint NOT NULL
);
CREATE INDEX revoked_grants_expires_at ON revoked_grants (expires_at);

CREATE TABLE revoked_access_tokens (
  jti        text PRIMARY KEY,
  expires_at bigint NOT NULL
);
CREATE INDEX revoked_access_tokens_expires_at ON revoked_access_tokens (expires_at);

CREATE TABLE sessions (
  id_hash      text PRIMARY KEY,
  user_id      text NOT NULL,
  created_at   bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  expires_at   bigint NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE consents (
  user_id    text NOT NULL,
  client_id  text NOT NULL,
  scope      text NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (user_id, client_id)
);
CREATE INDEX consents_expires_at ON consents (expires_at);

CREATE TABLE rate_limits (
  key        text PRIMARY KEY,
  count      integer NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX rate_limits_expires_at ON rate_limits (expires_at);
