-- One writer per view: the row a command takes (by a MERGE) before it writes a view's tables.
CREATE TABLE IF NOT EXISTS delta.`${home}/leases` (
  view STRING NOT NULL, holder STRING NOT NULL, since BIGINT NOT NULL, until BIGINT NOT NULL,
  command STRING
) USING DELTA;
