-- API tokens of users, for scripts and the ipfe CLI: only the SHA-256 of each secret is kept. A
-- revoked token stays (revoked_at set) so that using it answers "revoked", not "unknown"; a
-- deleted user's tokens go with the user.
CREATE TABLE api_tokens (
  id           INTEGER PRIMARY KEY,
  user         TEXT    NOT NULL REFERENCES users (name) ON DELETE CASCADE,
  name         TEXT    NOT NULL,
  secret_hash  TEXT    NOT NULL UNIQUE,
  created_at   TEXT    NOT NULL,
  last_used_at TEXT,
  revoked_at   TEXT
);
CREATE INDEX api_tokens_user ON api_tokens (user);
