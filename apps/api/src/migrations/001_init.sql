-- Every committed configuration revision, kept forever; the latest is the running configuration.
CREATE TABLE revisions (
  number     INTEGER PRIMARY KEY,
  author     TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  summary    TEXT    NOT NULL,
  sha256     TEXT    NOT NULL,
  document   TEXT    NOT NULL
);

CREATE TABLE users (
  name          TEXT    PRIMARY KEY,
  role          TEXT    NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  password_hash TEXT    NOT NULL,
  -- Bumped when the password changes: sessions of an older epoch are no longer valid.
  session_epoch INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT    NOT NULL,
  updated_at    TEXT    NOT NULL
);

CREATE TABLE sessions (
  id         TEXT    PRIMARY KEY,
  data       TEXT    NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
