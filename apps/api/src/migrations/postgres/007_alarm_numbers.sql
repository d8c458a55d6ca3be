-- The source product's alarm numbers mean here what they mean there (issue 27, decision 025): the
-- alarms of our own that had taken its numbers move, and 5012 takes its name and severity. The
-- alarm log is renumbered so that its history reads as the alarms of this release do.
UPDATE alarms SET code = 5150 WHERE code = 5100 AND name = 'Configuration Rejected';
UPDATE alarms SET code = 5151 WHERE code = 5101 AND name = 'IPFE Unreachable';
UPDATE alarms SET code = 5152 WHERE code = 5020 AND name = 'BGP Session Down';
UPDATE alarms SET name = 'Signaling Interface Heartbeat Timeout', severity = 'critical'
  WHERE code = 5012 AND name = 'Mate Heartbeat Timeout';
