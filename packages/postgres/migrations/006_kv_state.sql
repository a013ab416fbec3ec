-- Gatehouse storage, schema version 6 (host contract v3): sessions, consents, rate-limit windows and
-- replay ids live in `key_values`, where Gatehouse builds them on the key-value store for every
-- engine (`packages/core/src/storage/kv/`). Run by `migrate(pool, { schema })` inside one
-- transaction with `search_path` set to the target schema, after 005_key_values. It:
--   * copies every live row of `sessions`, `consents`, `rate_limits` and `replay_ids` (all
--     instances) into `key_values`, under exactly the keys and values the v3 stores read
--     (`storage/kv/keys.ts`), each with its own expiry; an entry already there (written by a v3
--     process) is kept as it is;
--   * drops the four tables, which nothing reads any more.
-- A v2 process still serving after this ran fails its session, consent, rate-limit and replay
-- calls (503) until it is replaced: run it when the new version rolls out, not before.
-- Keys and values are percent-encoded as the engine stores them (`%` as `%25`; `text` holds no
-- U+0000). SHA-256 digests are base64url without padding of the UTF-8 text, as `sha256Base64url`.

CREATE OR REPLACE FUNCTION pg_temp.kv_text(value text) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT replace(value, '%', '%25') $$;
CREATE OR REPLACE FUNCTION pg_temp.digest(value text) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT rtrim(translate(encode(sha256(convert_to(value, 'UTF8')), 'base64'), '+/', '-_'), '=') $$;
CREATE TEMPORARY TABLE kv_now ON COMMIT DROP AS
  SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms;

-- A session: the record as JSON (optional fields from `attrs`), until its absolute end.
INSERT INTO key_values (instance_id, key, value, expires_at)
SELECT s.instance_id,
       pg_temp.kv_text('session:' || s.id_hash),
       pg_temp.kv_text((s.attrs || jsonb_build_object(
         'idHash', s.id_hash, 'userId', s.user_id, 'createdAt', s.created_at,
         'lastSeenAt', s.last_seen_at, 'expiresAt', s.expires_at))::text),
       s.expires_at
FROM sessions s, kv_now
WHERE s.expires_at > kv_now.ms
ON CONFLICT (instance_id, key) DO NOTHING;

-- A consent: the record as JSON, under digests of its user and client ids.
INSERT INTO key_values (instance_id, key, value, expires_at)
SELECT c.instance_id,
       pg_temp.kv_text('consent:' || pg_temp.digest(c.user_id) || ':' || pg_temp.digest(c.client_id)),
       pg_temp.kv_text((c.attrs || jsonb_build_object(
         'userId', c.user_id, 'clientId', c.client_id, 'scope', c.scope,
         'expiresAt', c.expires_at))::text),
       c.expires_at
FROM consents c, kv_now
WHERE c.expires_at > kv_now.ms
ON CONFLICT (instance_id, key) DO NOTHING;

-- A rate-limit window: its counter and its end, both until the window ends.
INSERT INTO key_values (instance_id, key, value, expires_at)
SELECT r.instance_id, pg_temp.kv_text('rate:' || r.key), r.count::text, r.expires_at
FROM rate_limits r, kv_now
WHERE r.expires_at > kv_now.ms
ON CONFLICT (instance_id, key) DO NOTHING;
INSERT INTO key_values (instance_id, key, value, expires_at)
SELECT r.instance_id, pg_temp.kv_text('rate-end:' || r.key), r.expires_at::text, r.expires_at
FROM rate_limits r, kv_now
WHERE r.expires_at > kv_now.ms
ON CONFLICT (instance_id, key) DO NOTHING;

-- A used single-use id, until it expires.
INSERT INTO key_values (instance_id, key, value, expires_at)
SELECT o.instance_id, pg_temp.kv_text('once:' || o.id), '1', o.expires_at
FROM replay_ids o, kv_now
WHERE o.expires_at > kv_now.ms
ON CONFLICT (instance_id, key) DO NOTHING;

DROP TABLE sessions, consents, rate_limits, replay_ids;
