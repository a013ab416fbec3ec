-- Gatehouse storage, schema version 8: a cheaper refresh-token rotation. Run by
-- `migrate(pool, { schema })` inside one transaction with `search_path` set to the target schema,
-- after 007_client_partitions.
--
-- A rotation marks the presented token (`UPDATE … SET rotated_at`) and inserts its successor. The
-- index of a user's live tokens (004) named `rotated_at` in its predicate, and PostgreSQL counts a
-- predicate's columns as indexed: every rotation's UPDATE was then a full new row version, with an
-- entry in each index (primary key, `expires_at`). Without `rotated_at` in any index, the UPDATE is
-- a heap-only tuple (HOT) update: the new version stays on its page and no index is written.
-- `fillfactor` 90 leaves room on each page for that version (pages filled before this keep theirs);
-- pruning of earlier versions makes room too (bench/RESULTS.md: 73 % of rotations HOT at 100, 79 % at
-- 90, 95 % at 80 in the bench, where 90 costs a tenth more table space and 80 a quarter).
--
-- `listUserRefreshTokens` (not on a request path: account pages) now reads a user's rotated tokens
-- too and filters them, which the index kept out before.
--
-- Upgrade path: additive for the statements of every version: the index is replaced in the same
-- transaction, and the statements of the previous version (the same WHERE) use the new one.
-- Building it reads the table once under a SHARE lock (writes wait meanwhile), as 004 did.

CREATE INDEX refresh_tokens_user ON refresh_tokens (instance_id, subject_id) WHERE subject_kind = 'user';
DROP INDEX refresh_tokens_user_live;
ALTER TABLE refresh_tokens SET (fillfactor = 90);
