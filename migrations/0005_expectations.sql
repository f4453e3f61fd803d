-- Expectations: every result of a suite run after a close or by `reasonlake validate`.
CREATE TABLE IF NOT EXISTS delta.`${home}/expectations` (
  view STRING NOT NULL, close BIGINT NOT NULL, version BIGINT NOT NULL, run STRING NOT NULL,
  suite STRING NOT NULL, expectation STRING NOT NULL, kwargs STRING, success BOOLEAN NOT NULL,
  observed STRING, unexpected STRING, at TIMESTAMP NOT NULL
) USING DELTA;
-- a close's failed expectations (NULL: none ran) and whether readers skip it (on_failure: fail).
ALTER TABLE delta.`${home}/view_state` ADD COLUMNS (expectation_failures BIGINT, withheld BOOLEAN);
