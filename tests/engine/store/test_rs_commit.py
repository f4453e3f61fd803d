"""The driver's commits through delta-rs (engine/rs_commit, a Spark Connect session's) leave
the table a Spark write would: Spark reads back the rows written, a retried append is
skipped, partitions are replaced over files carrying deletion vectors, a compare-and-set
loses to any commit since its read, and the system tables are still read in the driver
without the checksum delta-rs does not write. Called here with the suite's classic
session, which shares this machine's files as the command server does."""
from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from reasonlake.engine.store import arrow_commit, rs_commit, session_marks, small_tables
from reasonlake.errors import ConcurrentWriteError

MAT = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, exp_pane BIGINT, rule STRING"


def _rows(spark, path: str):
    return spark.read.format("delta").load(path)


def _same(spark, path: str, frame: pl.DataFrame) -> None:
    got = _rows(spark, path)
    want = spark.createDataFrame(frame.to_arrow(), schema=got.schema).select(got.columns)
    assert got.count() == frame.height
    assert got.exceptAll(want).isEmpty() and want.exceptAll(got).isEmpty()


def test_appends_read_back_as_written_a_retry_is_skipped_and_the_mark_is_kept(spark, tmp_path):
    path = str(tmp_path / "records")
    spark.sql(f"CREATE TABLE delta.`{path}` (view STRING NOT NULL, seq BIGINT NOT NULL, n INT) USING DELTA")
    first = pl.DataFrame({"n": [1, None], "seq": [1, 2], "view": ["a", "b"]})  # any column order
    with session_marks.marked(spark):
        assert rs_commit.append(spark, path, first, txn=("ingest", 1)) == 1
    assert rs_commit.append(spark, path, first, txn=("ingest", 1)) is None  # a retried call
    second = pl.DataFrame({"view": ["c"], "seq": [3], "n": [7]})
    assert rs_commit.append(spark, path, second) == 2
    _same(spark, path, pl.concat([first.select("view", "seq", "n"), second]))
    history = {r.version: r.userMetadata for r in spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()}
    assert history[1] == session_marks.MARK and history[2] is None
    # no checksum beside a delta-rs commit: the driver's reader lists the files itself
    assert not (tmp_path / "records/_delta_log/00000000000000000002.crc").exists()
    read = small_tables.rows(Path(path), ["view", "seq", "n"])
    assert read is not None
    assert sorted(map(tuple, read)) == sorted(map(tuple, _rows(spark, path).select("view", "seq", "n").collect()))
    with pytest.raises(ValueError, match="NOT NULL column seq"):
        rs_commit.append(spark, path, pl.DataFrame({"view": ["d"], "seq": [None], "n": [1]}))


def test_partitions_are_replaced_over_files_with_deletion_vectors(spark, tmp_path):
    path = str(tmp_path / "mat")
    spark.sql(f"CREATE TABLE delta.`{path}` ({MAT}) USING DELTA PARTITIONED BY (exp_pane) "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO delta.`{path}` SELECT id, 1, id, id * 10, id % 3, 'explicit' FROM range(30)")
    spark.sql(f"DELETE FROM delta.`{path}` WHERE s IN (3, 4)")  # deletion vectors in panes 0 and 1
    assert _rows(spark, path).count() == 28
    new = pl.DataFrame({"s": [100, 101], "p": [1, 1], "o": [5, 6], "origin": [7, 8], "exp_pane": [0, 0],
                        "rule": ["explicit", "cax-sco"]})
    rs_commit.replace_partitions(spark, path, new, column="exp_pane", predicate="exp_pane IN (0) OR exp_pane <= 1",
                                 replaced=lambda pane: pane <= 1)
    kept = _rows(spark, path).where("exp_pane = 2").toPandas()
    assert len(kept) == 10
    _same(spark, path, pl.concat([new, pl.from_pandas(kept).select(new.columns).cast(new.schema)]))
    with pytest.raises(ValueError, match="outside"):
        rs_commit.replace_partitions(spark, path, new.with_columns(pl.lit(2).alias("exp_pane")), column="exp_pane",
                                     predicate="exp_pane IN (0)", replaced=lambda pane: pane == 0)


def test_a_compare_and_set_loses_to_any_commit_since_its_read(spark, tmp_path):
    path = str(tmp_path / "leases")
    spark.sql(f"CREATE TABLE delta.`{path}` (view STRING NOT NULL, holder STRING NOT NULL, until BIGINT) USING DELTA")
    spark.sql(f"INSERT INTO delta.`{path}` VALUES ('v', 'a', 1)")

    def racing(rows: pl.DataFrame):  # someone else commits between our read and our commit
        spark.sql(f"INSERT INTO delta.`{path}` VALUES ('w', 'b', 2)")
        return rows.with_columns(pl.lit("me").alias("holder")), "taken"

    with pytest.raises(Exception) as lost:
        rs_commit.rewrite_small(spark, path, racing)
    assert ConcurrentWriteError.race_in(lost.value)
    assert sorted(map(tuple, _rows(spark, path).collect())) == [("v", "a", 1), ("w", "b", 2)]
    answer = rs_commit.rewrite_small(spark, path, lambda rows: (
        rows.with_columns(pl.when(pl.col("view") == "v").then(pl.lit("me")).otherwise(pl.col("holder"))
                          .alias("holder")), "taken"))
    assert answer == "taken"
    assert sorted(map(tuple, _rows(spark, path).collect())) == [("v", "me", 1), ("w", "b", 2)]
    assert rs_commit.rewrite_small(spark, path, lambda rows: (None, rows.height)) == 2  # nothing written


def test_a_table_whose_writes_spark_must_enforce_is_left_to_spark(spark, tmp_path):
    path = str(tmp_path / "checked")
    spark.sql(f"CREATE TABLE delta.`{path}` (n BIGINT) USING DELTA")
    spark.sql(f"ALTER TABLE delta.`{path}` ADD CONSTRAINT positive CHECK (n > 0)")
    with pytest.raises(arrow_commit.Unusable):
        rs_commit.append(spark, path, pl.DataFrame({"n": [-1]}))
    with pytest.raises(arrow_commit.Unusable):
        rs_commit.append(spark, str(tmp_path / "none"), pl.DataFrame({"n": [1]}))
    assert _rows(spark, path).count() == 0
