-- Gatehouse storage, schema version 2: users' revocation marks (`GrantStore.revokeSubject`, written
-- by `gatehouse.revokeUser`). Everything issued to `user_id` at or before `revoked_at` (epoch ms) is
-- revoked until `expires_at`. Read by primary key, inside the same statement as the grant's
-- revocation (bearer check, code redemption, refresh rotation); the index serves the sweeper.

CREATE TABLE revoked_subjects (
  user_id    text PRIMARY KEY,
  revoked_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX revoked_subjects_expires_at ON revoked_subjects (expires_at);
