"""Aggregates over a frame computed by the job that checkpoints it (``DataFrame.observe``),
not by jobs of their own.

A Spark job costs 0.1-0.3 s whatever its size, and an aggregate asked for on its own costs
two under adaptive execution (the exchange of its partial results is a stage, so a job, of
its own). A close on Spark checkpoints every frame it reads again (the table, the admitted
items, a round's best candidates and Δ, the changes); their sizes and summaries come with
those checkpoints.

Spark Connect sends no observed values back from a checkpoint: there the aggregates run
after it, as a query of their own.
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, Observation

from reasonlake.spark import classic


def checkpointed(frame: DataFrame, **aggregates: Column) -> tuple[DataFrame, dict]:
    """``frame`` checkpointed (``localCheckpoint``, eager), and the value of each of
    ``aggregates`` over its rows, by name."""
    named = _named(aggregates)
    if classic.jvm(frame.sparkSession) is None:
        out = frame.localCheckpoint()
        return out, out.agg(*named).first().asDict()
    seen = Observation()
    out = frame.observe(seen, *named).localCheckpoint()
    return out, seen.get


def checkpointed_where(frame: DataFrame, condition: Column, columns: list[str],
                       **aggregates: Column) -> tuple[DataFrame, dict]:
    """``columns`` of the rows of ``frame`` where ``condition`` holds, checkpointed, and each
    of ``aggregates`` over *every* row of ``frame``: what the filter leaves out is counted by
    the job that reads it, not by a query of its own (over a Delta table, a count of some
    partitions was four jobs: the files filtered, the scan, its exchange, its result)."""
    named = _named(aggregates)
    if classic.jvm(frame.sparkSession) is None:
        out = frame.where(condition).select(*columns).localCheckpoint()
        return out, frame.agg(*named).first().asDict()
    seen = Observation()
    # the observation stands below the filter, so the filter is not pushed into the scan
    out = frame.observe(seen, *named).where(condition).select(*columns).localCheckpoint()
    return out, seen.get


def _named(aggregates: dict[str, Column]) -> list[Column]:
    return [column.alias(name) for name, column in aggregates.items()]
