-- The system tables of a reasonlake home. ${home} is the lakehouse root.
CREATE TABLE IF NOT EXISTS delta.`${home}/events` (
  stream STRING NOT NULL, s STRING NOT NULL, p STRING NOT NULL, o STRING NOT NULL,
  s_id BIGINT NOT NULL, p_id BIGINT NOT NULL, o_id BIGINT NOT NULL,
  ts BIGINT NOT NULL, ts_day BIGINT NOT NULL, ingest_seq BIGINT NOT NULL,
  file STRING, line INT, event INT
) USING DELTA PARTITIONED BY (stream, ts_day);

CREATE TABLE IF NOT EXISTS delta.`${home}/quarantine` (
  stream STRING, file STRING, line INT, raw STRING, reason STRING,
  ingest_seq BIGINT, at TIMESTAMP
) USING DELTA;

CREATE TABLE IF NOT EXISTS delta.`${home}/ingests` (
  seq BIGINT NOT NULL, stream STRING NOT NULL, file STRING, sha256 STRING NOT NULL,
  items BIGINT, quarantined BIGINT, at TIMESTAMP
) USING DELTA;

CREATE TABLE IF NOT EXISTS delta.`${home}/terms` (
  id BIGINT NOT NULL, term STRING NOT NULL
) USING DELTA;

CREATE TABLE IF NOT EXISTS delta.`${home}/views` (
  name STRING NOT NULL, fingerprint STRING NOT NULL, definition STRING NOT NULL,
  created_at TIMESTAMP
) USING DELTA;

CREATE TABLE IF NOT EXISTS delta.`${home}/view_state` (
  view STRING NOT NULL, seq BIGINT NOT NULL, close BIGINT NOT NULL, version BIGINT NOT NULL,
  mode STRING NOT NULL, events_seq BIGINT NOT NULL,
  admitted BIGINT, expired BIGINT, derived BIGINT, renewed BIGINT, rounds INT,
  late BIGINT, seconds DOUBLE, at TIMESTAMP
) USING DELTA;

CREATE TABLE IF NOT EXISTS delta.`${home}/late` (
  view STRING NOT NULL, s STRING, p STRING, o STRING, ts BIGINT, ingest_seq BIGINT,
  close BIGINT, reason STRING
) USING DELTA;
