-- PostgreSQL's form of ../001_init.sql (decision 021): the same tables, columns and checks.
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
  session_epoch INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT    NOT NULL,
  updated_at    TEXT    NOT NULL
);

CREATE TABLE sessions (
  id         TEXT    PRIMARY KEY,
  data       TEXT    NOT NULL,
  expires_at BIGINT  NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
