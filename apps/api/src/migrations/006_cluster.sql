-- Several OAMs on one store (decision 022). On SQLite there is one OAM, but the tables are the same
-- on both engines so that one set of queries serves both.

-- The alarm events whose SNMP traps are not sent yet: written in the transaction that changes the
-- alarm log, deleted by the leader once sent, so that a leader killed between the two leaves them
-- to the next one (at least once; the alarm id in each trap tells a repeat).
CREATE TABLE trap_outbox (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  event      TEXT    NOT NULL,
  created_at TEXT    NOT NULL
);

-- Each OAM's last heartbeat: what Status & Manage lists.
CREATE TABLE oam_nodes (
  id         TEXT    PRIMARY KEY,
  address    TEXT    NOT NULL,
  role       TEXT    NOT NULL CHECK (role IN ('leader', 'follower')),
  started_at TEXT    NOT NULL,
  last_seen  INTEGER NOT NULL
);

-- Login rate limits shared by the OAMs (rate-limiter-flexible's layout).
CREATE TABLE login_limits (
  key    VARCHAR(255) PRIMARY KEY,
  points INTEGER      NOT NULL DEFAULT 0,
  expire BIGINT
);

-- Secrets every OAM of the cluster must share (the session cookie's key), made by the first one.
CREATE TABLE cluster_secrets (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
