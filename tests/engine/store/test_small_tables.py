"""The small system tables read from their files in the driver give the rows Spark gives,
and every table the reader does not know to be plain is left to Spark."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlake.engine.store import access, retention, session, small_tables


def _spark_rows(spark, path, columns):
    return spark.read.format("delta").load(path).select(*columns).collect()


def test_rows_equal_sparks_across_a_column_added_later(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (name STRING, n BIGINT, k INT, x DOUBLE, at TIMESTAMP) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('a', 1, 2, 0.5, TIMESTAMP '2026-11-27 10:00:00.123'), "
              "('b', NULL, NULL, NULL, NULL)")
    spark.sql(f"ALTER TABLE delta.`{path}` ADD COLUMNS (ok BOOLEAN)")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('c', 3, 4, 1.5, TIMESTAMP '2026-11-27 11:00:00', true)")
    columns = ["name", "n", "k", "x", "at", "ok"]
    read = small_tables.rows(Path(path), columns)
    assert read is not None, "a plain small table was left to Spark"
    expected = _spark_rows(spark, path, columns)
    assert sorted(map(tuple, read)) == sorted(map(tuple, expected))  # older files: ok is null
    assert [r.name for r in sorted(read)] == ["a", "b", "c"]
    assert small_tables.rows(Path(path), ["ok", "name"])[0].__fields__ == ["ok", "name"]
    assert small_tables.latest_commit(Path(path))[0] == 3


def test_a_table_of_more_files_than_its_checksum_lists_is_read_from_its_log(spark, tmp_path):
    """Delta lists a version's files in its checksum only up to 50, and view_state gains one
    a close: past that, the files come from the log's last checkpoint and the commits after it."""
    path = str(tmp_path / "many")
    spark.sql(f"CREATE TABLE delta.`{path}` (name STRING, n BIGINT) USING DELTA "
              "TBLPROPERTIES ('delta.checkpointInterval' = '2')")
    rows = spark.range(0, 120).selectExpr("CAST(id AS STRING) AS name", "id AS n")
    rows.repartition(60).write.format("delta").mode("append").save(path)  # 60 files in one commit
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('checkpointed', 120)")  # version 2: a checkpoint
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('after it', 121)")
    log = tmp_path / "many" / "_delta_log"
    assert "allFiles" not in json.loads((log / f"{3:020d}.crc").read_text()), "the checksum lists the files"
    assert (log / f"{2:020d}.checkpoint.parquet").exists()
    read = small_tables.rows(Path(path), ["name", "n"])
    assert read is not None, "a plain table of many files was left to Spark"
    assert sorted(map(tuple, read)) == sorted(map(tuple, _spark_rows(spark, path, ["name", "n"])))
    assert len(read) == 122


def test_what_it_does_not_know_is_left_to_spark(spark, tmp_path, monkeypatch):
    missing = str(tmp_path / "none")
    with pytest.raises(FileNotFoundError):
        small_tables.rows(Path(missing), ["a"])
    assert small_tables.latest_commit(Path(missing)) is None
    elsewhere = access.of(spark, "s3a://bucket/t")  # not a folder of this machine: Delta answers
    assert elsewhere.folder("s3a://bucket/t") is None and elsewhere.rows("s3a://bucket/t", ["a"]) is None

    parted = str(tmp_path / "parted")
    spark.sql(f"CREATE TABLE delta.`{parted}` (a STRING, p INT) USING DELTA PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO delta.`{parted}` VALUES ('x', 1)")
    assert small_tables.rows(Path(parted), ["a", "p"]) is None

    vectors = str(tmp_path / "vectors")
    spark.sql(f"CREATE TABLE delta.`{vectors}` (a STRING) USING DELTA "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO delta.`{vectors}` VALUES ('x'), ('y')")
    spark.sql(f"DELETE FROM delta.`{vectors}` WHERE a = 'x'")
    found = small_tables.rows(Path(vectors), ["a"])
    log = sorted((tmp_path / "vectors" / "_delta_log").glob("*.crc"))[-1]
    if any(f.get("deletionVector") for f in json.loads(log.read_text())["allFiles"]):
        assert found is None, "rows hidden by a deletion vector were read"
    else:  # this Delta build rewrote the file instead
        assert [tuple(r) for r in found] == [("y",)]

    nested = str(tmp_path / "nested")
    spark.sql(f"CREATE TABLE delta.`{nested}` (a ARRAY<STRING>) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{nested}` VALUES (array('x'))")
    assert small_tables.rows(Path(nested), ["a"]) is None

    unlisted = str(tmp_path / "unlisted")
    spark.sql(f"CREATE TABLE delta.`{unlisted}` (a STRING) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{unlisted}` VALUES ('x')")
    for crc in (tmp_path / "unlisted" / "_delta_log").glob("*.crc"):
        crc.unlink()
    # no checksum (a commit delta-rs wrote: rs_commit): the log replayed by delta-rs lists the files
    assert [tuple(r) for r in small_tables.rows(Path(unlisted), ["a"])] == [("x",)]
    for crc in (tmp_path / "vectors" / "_delta_log").glob("*.crc"):
        crc.unlink()
    assert small_tables.rows(Path(vectors), ["a"]) is None  # deletion vectors: Spark reads them

    monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")  # turned off: every answer from Delta
    through_delta = access.of(spark, nested)
    assert through_delta.name == "local-folder" and not through_delta.reads_here
    assert through_delta.rows(nested, ["a"]) is None and through_delta.history(nested) is None
    assert through_delta.latest_commit(nested)[0] == 1  # from Delta's log in the JVM


def test_history_from_the_log_equals_describe_history(spark, tmp_path):
    path = str(tmp_path / "h")
    spark.sql(f"CREATE TABLE delta.`{path}` (a STRING) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('x')")
    spark.sql(f"DELETE FROM delta.`{path}` WHERE a = 'x'")
    # VACUUM's listing in 8 tasks, as ``retention.vacuum`` asks (Delta's 10000 were most of this test's 89 s)
    with session.settings_for_a_while(spark, {retention._CHECK: "false", retention._LISTING: "8"}):
        spark.sql(f"VACUUM delta.`{path}` RETAIN 0 HOURS")
    read = small_tables.history(Path(path))
    described = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert [(r.version, r.operation, dict(r.operationParameters)) for r in read] == \
        [(r.version, r.operation, dict(r.operationParameters)) for r in described]
    assert "VACUUM START" in {r.operation for r in read}
    for mine, theirs in zip(read, described):  # Delta's timestamp is the commit file's too
        assert abs(mine.timestamp.timestamp() - theirs.timestamp.timestamp()) < 1.0
    assert small_tables.history(Path(path), limit=2) == read[:2]
    assert access.of(spark, "s3a://bucket/t").history("s3a://bucket/t") is None
