"""Commits written from the driver (engine/arrow_commit) leave the table a Spark write would:
the same rows read back by Spark, Delta's checks, idempotent retries, partition replacement
over files carrying deletion vectors, and Spark's path wherever they cannot be used."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import polars as pl
import pytest
from delta.tables import DeltaTable
from pyspark.sql import functions as F

from reasonlake.engine.store import arrow_commit, table_writes

EVENTS = ("stream STRING NOT NULL, s STRING NOT NULL, s_id BIGINT NOT NULL, ts BIGINT NOT NULL, "
          "ts_day BIGINT NOT NULL, line INT, at TIMESTAMP")


def _events(n: int, stream: str = "s", day: int = 0, offset: int = 0) -> pl.DataFrame:
    return pl.DataFrame({
        "stream": [stream] * n, "s": [f"<http://ex.org/e{offset + i}>" for i in range(n)],
        "s_id": [offset + i for i in range(n)], "ts": [offset + i for i in range(n)], "ts_day": [day] * n,
        "line": [i if i % 3 else None for i in range(n)], "at": [datetime.now(timezone.utc)] * n,
    })


def _create(spark, path: str, schema: str, partitioned: str = "", props: str = "") -> None:
    spark.sql(f"CREATE TABLE delta.`{path}` ({schema}) USING DELTA {partitioned} {props}")


def _same(spark, path: str, frame: pl.DataFrame) -> None:
    got = spark.read.format("delta").load(path)
    want = spark.createDataFrame(frame.to_arrow(), schema=got.schema).select(got.columns)
    assert got.count() == frame.height
    assert got.exceptAll(want).isEmpty() and want.exceptAll(got).isEmpty()


def test_a_partitioned_append_reads_back_as_written_and_is_skipped_by_its_statistics(spark, tmp_path):
    path = str(tmp_path / "events")
    _create(spark, path, EVENTS, "PARTITIONED BY (stream, ts_day)")
    first, second = _events(500, "a", 0), _events(300, "b", 2, offset=1000)
    assert arrow_commit.append(spark, path, first.select(list(reversed(first.columns)))) == 1
    assert arrow_commit.append(spark, f"file:{path}", second) == 2
    _same(spark, path, pl.concat([first, second]))
    files = {f.parent.name for f in (tmp_path / "events").rglob("*.parquet")}
    assert files == {"ts_day=0", "ts_day=2"}
    history = DeltaTable.forPath(spark, path).history(1).first()
    assert history.operation == "WRITE" and history.operationParameters["mode"] == "Append"
    assert history.operationMetrics == {"numFiles": "1", "numOutputRows": "300", "numOutputBytes": str(
        sum(f.stat().st_size for f in (tmp_path / "events/stream=b").rglob("*.parquet")))}
    # statistics on the numbers, none on the strings: a filter on either is still right
    assert spark.read.format("delta").load(path).where(F.col("ts") >= 1290).count() == 10
    assert spark.read.format("delta").load(path).where(F.col("s") == "<http://ex.org/e7>").count() == 1
    add = [json.loads(line)["add"] for line in (tmp_path / "events/_delta_log/00000000000000000002.json")
           .read_text().splitlines() if '"add"' in line][0]
    stats = json.loads(add["stats"])
    assert stats["numRecords"] == 300 and stats["minValues"]["ts"] == 1000 and stats["maxValues"]["ts"] == 1299
    assert stats["nullCount"]["line"] == 100 and "s" not in stats["minValues"]


def test_a_retried_append_with_the_same_transaction_writes_nothing(spark, tmp_path):
    path = str(tmp_path / "ingests")
    _create(spark, path, "seq BIGINT NOT NULL, file STRING")
    rows = pl.DataFrame({"seq": [1, 2], "file": ["a", "b"]})
    assert arrow_commit.append(spark, path, rows, txn=("ingest-x", 1)) == 1
    assert arrow_commit.append(spark, path, rows, txn=("ingest-x", 1)) is None
    assert arrow_commit.append(spark, path, rows, txn=("ingest-y", 1)) == 2
    # Spark's own txnAppId check sees the transaction the driver wrote
    spark.createDataFrame([(9, "z")], "seq BIGINT, file STRING").write.format("delta").mode("append") \
        .option("txnAppId", "ingest-x").option("txnVersion", 1).save(path)
    assert spark.read.format("delta").load(path).count() == 4
    # and the driver sees the transactions Spark wrote (from the checksum, or the log state)
    spark.createDataFrame([(9, "z")], "seq BIGINT, file STRING").write.format("delta").mode("append") \
        .option("txnAppId", "ingest-z").option("txnVersion", 3).save(path)
    assert arrow_commit.append(spark, path, rows, txn=("ingest-z", 3)) is None
    assert spark.read.format("delta").load(path).count() == 5


def test_a_null_in_a_not_null_column_writes_nothing(spark, tmp_path):
    path = str(tmp_path / "t")
    _create(spark, path, "seq BIGINT NOT NULL, file STRING")
    with pytest.raises(ValueError, match="NOT NULL column seq"):
        arrow_commit.append(spark, path, pl.DataFrame({"seq": [1, None], "file": ["a", "b"]}))
    assert spark.read.format("delta").load(path).count() == 0
    assert not list((tmp_path / "t").glob("*.parquet"))


def test_replacing_partitions_removes_their_files_deletion_vectors_and_all(spark, tmp_path):
    path = str(tmp_path / "mat")
    _create(spark, path, "s BIGINT, origin BIGINT, exp_pane BIGINT, rule STRING", "PARTITIONED BY (exp_pane)",
            "TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.createDataFrame([(i, i, 10 * (i % 4), "r") for i in range(400)], "s BIGINT, origin BIGINT, exp_pane BIGINT, rule STRING") \
        .coalesce(1).write.format("delta").mode("append").save(path)
    DeltaTable.forPath(spark, path).delete("s % 7 = 0")  # deletion vectors on every pane's file
    assert any('"deletionVector"' in line for f in (tmp_path / "mat/_delta_log").glob("*.json")
               for line in f.read_text().splitlines() if '"add"' in line)
    new = pl.DataFrame({"s": [1000, 1001, 1002], "origin": [1, 2, 3], "exp_pane": [10, 10, 30], "rule": ["x"] * 3})
    arrow_commit.replace_partitions(spark, path, new, column="exp_pane", replaced=lambda p: p in (10, 30) or p <= 0,
                                    predicate="exp_pane IN (10, 30) OR exp_pane <= 0")
    kept = [(i, i, 10 * (i % 4), "r") for i in range(400) if i % 4 == 2 and i % 7]
    want = pl.concat([pl.DataFrame(kept, schema=["s", "origin", "exp_pane", "rule"], orient="row"), new])
    _same(spark, path, want)
    history = DeltaTable.forPath(spark, path).history(1).first()
    assert history.operationParameters["predicate"] == "exp_pane IN (10, 30) OR exp_pane <= 0"
    metrics = history.operationMetrics
    assert (metrics["numFiles"], metrics["numOutputRows"]) == ("2", "3"), metrics
    assert metrics["numRemovedFiles"] == "3", metrics  # the files of panes 0, 10 and 30 (20 is kept)
    with pytest.raises(ValueError, match="outside"):
        arrow_commit.replace_partitions(spark, path, new, column="exp_pane", replaced=lambda p: p == 10,
                                        predicate="exp_pane = 10")
    _same(spark, path, want)


def test_tables_and_paths_it_cannot_take_go_through_spark(spark, tmp_path):
    checked = str(tmp_path / "checked")
    _create(spark, checked, "seq BIGINT")
    spark.sql(f"ALTER TABLE delta.`{checked}` ADD CONSTRAINT positive CHECK (seq > 0)")
    with pytest.raises(arrow_commit.Unusable):
        arrow_commit.append(spark, checked, pl.DataFrame({"seq": [-1]}))
    with pytest.raises(arrow_commit.Unusable):
        arrow_commit.append(spark, "s3a://bucket/table", pl.DataFrame({"seq": [1]}))
    with pytest.raises(Exception, match="CHECK constraint"):  # Spark writes it, and enforces the constraint
        table_writes.append_frame(spark, checked, pl.DataFrame({"seq": [-1]}), "seq BIGINT")
    table_writes.append_frame(spark, checked, pl.DataFrame({"seq": [1]}), "seq BIGINT")
    assert spark.read.format("delta").load(checked).count() == 1


def test_a_table_past_its_checkpoints_reads_back_whole(spark, tmp_path):
    path = str(tmp_path / "many")
    _create(spark, path, "seq BIGINT NOT NULL, day BIGINT", "PARTITIONED BY (day)")
    for n in range(12):  # past Delta's checkpoint every 10 commits
        arrow_commit.append(spark, path, pl.DataFrame({"seq": [n], "day": [n % 2]}), txn=("app", n))
    assert list((tmp_path / "many/_delta_log").glob("*.checkpoint.parquet"))
    assert arrow_commit.append(spark, path, pl.DataFrame({"seq": [5], "day": [1]}), txn=("app", 5)) is None
    _same(spark, path, pl.DataFrame({"seq": list(range(12)), "day": [n % 2 for n in range(12)]}))


def test_a_commit_racing_another_with_the_same_transaction_conflicts(spark, tmp_path):
    path = str(tmp_path / "raced")
    _create(spark, path, "seq BIGINT")
    arrow_commit.append(spark, path, pl.DataFrame({"seq": [1]}), txn=("app", 1))
    table = arrow_commit._open(spark, path)  # our snapshot, read from the checksum
    assert arrow_commit._known_version(table, "app") == 1
    spark.createDataFrame([(2,)], "seq BIGINT").write.format("delta").mode("append") \
        .option("txnAppId", "app").option("txnVersion", 2).save(path)
    txn = json.dumps({"txn": {"appId": "app", "version": 2, "lastUpdated": 0}})
    with pytest.raises(Exception, match="Concurrent"):
        arrow_commit._commit(spark, table, [txn], "Append", None, {})
    assert spark.read.format("delta").load(path).count() == 2
