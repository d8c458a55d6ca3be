-- What the OAM knows of each IPFE agent's copy of the configuration.
CREATE TABLE agent_sync (
  slot              TEXT    PRIMARY KEY CHECK (slot IN ('A1', 'A2', 'B1', 'B2')),
  desired_revision  INTEGER,
  applied_revision  INTEGER,
  applied_sha256    TEXT,
  rejected_revision INTEGER,
  rejected_error    TEXT,
  last_error        TEXT,
  last_contact      TEXT,
  state             TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('synced', 'pending', 'rejected', 'unreachable'))
);

-- Alarms raised by the agents (and by the OAM about the agents), with their history.
CREATE TABLE alarms (
  id         INTEGER PRIMARY KEY,
  slot       TEXT    NOT NULL,
  code       INTEGER NOT NULL,
  name       TEXT    NOT NULL,
  severity   TEXT    NOT NULL,
  target_set INTEGER,
  server     TEXT,
  text       TEXT    NOT NULL,
  raised_at  TEXT    NOT NULL,
  cleared_at TEXT
);
CREATE INDEX alarms_active ON alarms (cleared_at, slot);
CREATE INDEX alarms_raised ON alarms (raised_at);
