-- Who did what, when and from where: logins, failed logins and every change.
CREATE TABLE audit (
  id      INTEGER PRIMARY KEY,
  at      TEXT    NOT NULL,
  user    TEXT,
  address TEXT    NOT NULL,
  action  TEXT    NOT NULL,
  target  TEXT    NOT NULL,
  status  INTEGER NOT NULL,
  detail  TEXT
);
CREATE INDEX audit_at ON audit (at);
