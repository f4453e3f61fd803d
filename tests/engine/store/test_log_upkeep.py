"""The store checkpoints a local home's busy tables after its commits (``log_upkeep``), so
no ingest or close pays Delta's checkpoint inside a commit: the tenth commit runs no Spark
job, the checkpoint delta-rs writes reads back whole through Spark and delta-rs, and Delta's
transaction ids (an ingest's idempotence) survive it."""
from __future__ import annotations

import deltalake
import polars as pl

from reasonlake.engine.store import arrow_commit, log_upkeep

BUSY = ("events", "quarantine", "ingests", "terms", "view_state", "late", "leases")


def _last_job(spark) -> int:
    """The latest Spark job's id, but those building a file list ahead (``file_list``)."""
    from reasonlake.engine.store import file_list

    last, it = -1, spark.sparkContext._jsc.sc().statusStore().jobsList(None).iterator()
    while it.hasNext():
        job = it.next()
        if not (job.jobGroup().isDefined() and job.jobGroup().get() == file_list.JOB_GROUP):
            last = max(last, job.jobId())
    return last


def _checkpoints(folder) -> list[int]:
    return sorted(int(p.name.split(".")[0]) for p in (folder / "_delta_log").glob("*.checkpoint.parquet"))


def test_a_tenth_commit_runs_no_spark_job_and_its_checkpoint_reads_back(spark, tmp_path):
    folder = tmp_path / "busy"
    spark.sql(f"CREATE TABLE delta.`{folder}` (seq BIGINT NOT NULL, day BIGINT) USING DELTA PARTITIONED BY (day) "
              f"TBLPROPERTIES ('delta.checkpointInterval' = '{log_upkeep.OURS_FROM}')")
    per_commit = []
    for n in range(1, 25):
        before = _last_job(spark)
        version = arrow_commit.append(spark, str(folder), pl.DataFrame({"seq": [n], "day": [n % 3]}),
                                      txn=("app", n))
        per_commit.append((version, _last_job(spark) - before))
    assert [v for v, _ in per_commit] == list(range(1, 25))
    assert [(v, jobs) for v, jobs in per_commit if jobs] == [], "a commit ran Spark jobs"
    # the first ten commits since none (version -1) end at 9, the next ten at 19
    assert _checkpoints(folder) == [9, 19]
    # Delta's transaction ids are in the checkpoint: a retried append writes nothing
    assert arrow_commit.append(spark, str(folder), pl.DataFrame({"seq": [5], "day": [2]}), txn=("app", 5)) is None
    expected = spark.createDataFrame([(n, n % 3) for n in range(1, 25)], "seq BIGINT, day BIGINT")
    # a fresh look at the log (the checkpoint first, then the commits after it)
    spark._jvm.org.apache.spark.sql.delta.DeltaLog.clearCache()
    read = spark.read.format("delta").load(str(folder))
    assert read.exceptAll(expected).isEmpty() and expected.exceptAll(read).isEmpty()
    assert sorted(deltalake.DeltaTable(str(folder)).to_pyarrow_table().column("seq").to_pylist()) == list(range(1, 25))


def test_a_table_with_deltas_interval_is_left_to_delta(spark, tmp_path):
    folder = tmp_path / "default"
    spark.sql(f"CREATE TABLE delta.`{folder}` (seq BIGINT) USING DELTA")
    for n in range(1, 13):
        arrow_commit.append(spark, str(folder), pl.DataFrame({"seq": [n]}))
    assert _checkpoints(folder) == [10]  # Delta's own, inside the tenth commit
    assert log_upkeep.tend(str(folder)) is None
    assert log_upkeep.tend("s3a://bucket/table") is None  # not a local folder: Delta's writer does it


def test_a_local_homes_busy_tables_leave_their_checkpoints_to_the_store(initialized_home):
    for name in BUSY:
        settings = deltalake.DeltaTable(str(initialized_home / name)).metadata().configuration
        assert settings.get("delta.checkpointInterval") == str(log_upkeep.OURS_FROM), name
