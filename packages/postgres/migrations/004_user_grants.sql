-- Gatehouse storage, schema version 4: a user's grants ("connected apps", `gatehouse.listGrants`).
-- `listUserRefreshTokens` looks up the live refresh tokens of one user of one instance; without this
-- index that is a scan of every instance's refresh tokens. Partial: only user subjects' unrotated
-- tokens are ever listed, so rotated tokens (kept for reuse detection) cost the index nothing.
-- Nothing else changes: `grantedAt` lives in the existing `attrs` column.

CREATE INDEX refresh_tokens_user_live ON refresh_tokens (instance_id, subject_id)
  WHERE subject_kind = 'user' AND rotated_at IS NULL;
