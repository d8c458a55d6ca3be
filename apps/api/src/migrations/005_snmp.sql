-- SNMP trap destinations of the alarms (decision 017): kept in the OAM only, never in a revision,
-- an export or an answer (the secrets are write-only).
CREATE TABLE snmp_trap_destinations (
  position       INTEGER PRIMARY KEY,
  host           TEXT    NOT NULL,
  port           INTEGER NOT NULL,
  version        TEXT    NOT NULL CHECK (version IN ('v2c', 'v3')),
  community      TEXT,
  user           TEXT,
  security_level TEXT,
  auth_protocol  TEXT,
  auth_key       TEXT,
  priv_protocol  TEXT,
  priv_key       TEXT,
  UNIQUE (host, port)
);

-- One row: the OAM's SNMPv3 engine ID and a counter of saves (the ETag of the destinations).
CREATE TABLE snmp_trap_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  engine_id  TEXT    NOT NULL,
  generation INTEGER NOT NULL
);
