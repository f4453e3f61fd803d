-- One writer per view: the row a command takes (by a MERGE) before it writes a view's tables.
CREATE TABLE IF NOT EXISTS delta.`${home}/leases` (
  view STRING NOT NULL, holder STRING NOT NULL, since BIGINT NOT NULL, until BIGINT NOT NULL,
  command STRING
) USING DELTA
-- two small commits a writing command (take, hand back): Delta's checkpoint, a Spark job of
-- a second or more, every 100 of them rather than every 10; a reader replays at most 100
TBLPROPERTIES ('delta.checkpointInterval' = '100');
