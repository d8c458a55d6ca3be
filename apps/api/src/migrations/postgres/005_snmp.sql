-- PostgreSQL's form of ../005_snmp.sql.
CREATE TABLE snmp_trap_destinations (
  position       INTEGER PRIMARY KEY,
  host           TEXT    NOT NULL,
  port           INTEGER NOT NULL,
  version        TEXT    NOT NULL CHECK (version IN ('v2c', 'v3')),
  community      TEXT,
  "user"         TEXT,
  security_level TEXT,
  auth_protocol  TEXT,
  auth_key       TEXT,
  priv_protocol  TEXT,
  priv_key       TEXT,
  UNIQUE (host, port)
);

CREATE TABLE snmp_trap_settings (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  engine_id  TEXT    NOT NULL,
  generation INTEGER NOT NULL
);
