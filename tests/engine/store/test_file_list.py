"""The materialization's file list rebuilt ahead in the background (reasonlake.engine.store.file_list)."""
from __future__ import annotations

from delta.tables import DeltaTable
from pyspark.sql import functions as F

from reasonlake.engine.store import file_list

SCHEMA = "x BIGINT, part BIGINT"


def _jobs(spark) -> dict:
    store = spark.sparkContext._jsc.sc().statusStore()
    out, it = {}, store.jobsList(None).iterator()
    while it.hasNext():
        job = it.next()
        out[job.jobId()] = str(job.description().get()) if job.description().isDefined() else ""
    return out


def _snapshot_jobs_during(spark, action) -> list[str]:
    before = set(_jobs(spark))
    action()
    return [d for i, d in _jobs(spark).items() if i not in before and "Compute snapshot" in d]


def test_a_delete_after_the_list_was_built_ahead_rebuilds_nothing(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.createDataFrame([(i, i % 4) for i in range(40)], SCHEMA).write.format("delta") \
        .partitionBy("part").save(path)
    spark.createDataFrame([(100, 1)], SCHEMA).write.format("delta").mode("append").save(path)
    # without the list built ahead, Delta rebuilds it (Spark jobs) at the delete
    rebuilt = _snapshot_jobs_during(spark, lambda: DeltaTable.forPath(spark, path).delete(F.col("part") == 0))
    assert rebuilt, "Delta no longer rebuilds the state at a DELETE: file_list is not needed"
    file_list.rebuild_ahead(spark, path)
    file_list.settle(spark, path)
    assert _snapshot_jobs_during(spark, lambda: DeltaTable.forPath(spark, path).delete(F.col("part") == 1)) == []
    rows = sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())
    assert rows == sorted((i, i % 4) for i in range(40) if i % 4 > 1)


def test_failures_cost_nothing_and_settling_twice_is_fine(spark, tmp_path):
    file_list.rebuild_ahead(spark, str(tmp_path / "no-table"))
    file_list.settle(spark, str(tmp_path / "no-table"))
    file_list.settle(spark, str(tmp_path / "no-table"))
