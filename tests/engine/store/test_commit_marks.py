"""Appends made idempotent by their commit's mark (reasonlake.engine.store.commit_marks), on real Delta."""
from __future__ import annotations

from delta.tables import DeltaTable
from pyspark.sql import functions as F

from reasonlake.engine.store import commit_marks

SCHEMA = "x BIGINT, part BIGINT"


def _table(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` ({SCHEMA}) USING DELTA PARTITIONED BY (part)")
    return path


def _rows(spark, path):
    return sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())


def test_a_marked_append_is_written_once_per_seq(spark, tmp_path):
    path = _table(spark, tmp_path)
    assert commit_marks.written(spark, path, 1) is False  # only the creation so far
    frame = spark.createDataFrame([(1, 1), (2, 2)], SCHEMA)
    assert commit_marks.append(frame, path, 1, "app") is True
    assert commit_marks.append(frame, path, 1, "app") is False  # the retry of seq 1
    assert _rows(spark, path) == [(1, 1), (2, 2)]
    assert commit_marks.written(spark, path, 2) is False
    history = DeltaTable.forPath(spark, path).history(1).first()
    assert history.userMetadata == commit_marks.mark(1)


def test_expiry_deletes_in_between_are_passed_over(spark, tmp_path):
    path = _table(spark, tmp_path)
    commit_marks.append(spark.createDataFrame([(1, 1), (2, 2)], SCHEMA), path, 4, "app")
    DeltaTable.forPath(spark, path).delete(F.col("part") <= 1)
    DeltaTable.forPath(spark, path).delete(F.col("part") <= 1)  # matches nothing: no commit
    assert commit_marks.written(spark, path, 4) is True
    assert commit_marks.written(spark, path, 5) is False
    assert commit_marks.append(spark.createDataFrame([(3, 3)], SCHEMA), path, 5, "app") is True
    assert _rows(spark, path) == [(2, 2), (3, 3)]


def test_the_log_says_unsure_and_delta_decides(spark, tmp_path):
    path = _table(spark, tmp_path)
    # an unmarked append (an older release's, with txnAppId): the log cannot tell
    (spark.createDataFrame([(1, 1)], SCHEMA).write.format("delta").mode("append")
     .option("txnAppId", "app").option("txnVersion", 7).save(path))
    assert commit_marks.written(spark, path, 7) is None
    # then Delta's transaction check decides (the caller is told so): seq 7 is not written
    # twice, seq 8 is written
    assert commit_marks.append(spark.createDataFrame([(1, 1)], SCHEMA), path, 7, "app") is None
    commit_marks.append(spark.createDataFrame([(2, 2)], SCHEMA), path, 8, "app")
    assert _rows(spark, path) == [(1, 1), (2, 2)]
    # a later sequence's mark (the view was taken back) or a restore: unsure again
    assert commit_marks.written(spark, path, 3) is None
    spark.sql(f"RESTORE TABLE delta.`{path}` TO VERSION AS OF 1")
    assert commit_marks.written(spark, path, 8) is None


def test_more_unmarked_expiries_than_the_lookback_leave_it_to_delta(spark, tmp_path, monkeypatch):
    path = _table(spark, tmp_path)
    commit_marks.append(spark.createDataFrame([(1, 1), (2, 2), (3, 3)], SCHEMA), path, 1, "app")
    monkeypatch.setattr(commit_marks, "LOOKBACK", 2)
    DeltaTable.forPath(spark, path).delete(F.col("part") <= 1)
    assert commit_marks.written(spark, path, 1) is True
    DeltaTable.forPath(spark, path).delete(F.col("part") <= 2)
    assert commit_marks.written(spark, path, 1) is None
