"""Collects into the driver (``arrow_bridge``): a limit guards the driver's memory, and is not
asked of Spark where the caller's count already bounds the rows (decision 0065): a limit
before a collect is a shuffle of every row into one task."""
from __future__ import annotations

from pyspark.sql import functions as F

from reasonlake.engine.store.arrow_bridge import collect_arrow


def _stages(spark, group: str, collect) -> tuple[object, int]:
    """What ``collect()`` gives, and the stages of the jobs it ran."""
    sc = spark.sparkContext
    sc.setJobGroup(group, group)
    try:
        out = collect()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    return out, sum(len(tracker.getJobInfo(j).stageIds) for j in tracker.getJobIdsForGroup(group))


def test_a_limit_the_count_bounds_is_not_asked_of_spark(spark):
    frame = spark.range(1000).select(F.col("id").alias("s")).repartition(2).localCheckpoint()
    bounded, bounded_stages = _stages(spark, "arrow-bounded", lambda: collect_arrow(frame, ["s"], limit=5000, most=1000))
    limited, limited_stages = _stages(spark, "arrow-limited", lambda: collect_arrow(frame, ["s"], limit=5000))
    assert sorted(bounded.column("s").to_pylist()) == sorted(limited.column("s").to_pylist()) == list(range(1000))
    # the limit's shuffle into one partition is a stage more
    assert bounded_stages < limited_stages, (bounded_stages, limited_stages)
    # a bound past the limit keeps it: more rows than the limit are none
    assert collect_arrow(frame, ["s"], limit=10, most=1000) is None
    assert collect_arrow(frame, ["s"], limit=10) is None
