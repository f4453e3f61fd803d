"""The published closes of a view (`view_state`): what readers may see, and where a slide resumes.

Rows are appended, one per processed close, each naming the Delta version of the
materialization that holds exactly that close. A rebuild at a close replaces everything
published at or after it, so the effective lineage is computed from the rows in order.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.engine.home import Home


@dataclass(frozen=True)
class Published:
    seq: int
    close: int
    version: int
    mode: str
    events_seq: int
    admitted: int
    expired: int
    derived: int
    renewed: int
    rounds: int
    late: int
    seconds: float
    violations: int | None = 0  # owl2rl: violations live at this close (None: not recorded)
    repairs: int | None = 0  # newest-wins: explicit items removed at this close


def lineage(home: Home, view: str) -> list[Published]:
    return lineage_and_next_seq(home, view)[0]


def lineage_and_next_seq(home: Home, view: str) -> tuple[list[Published], int]:
    """The effective lineage and the seq the next record takes, from one read."""
    # sorted here: a few rows per close, and a Spark sort would add a shuffle stage
    rows = sorted(home.table("view_state").where(F.col("view") == view).drop("view", "at").collect(),
                  key=lambda r: r.seq)
    effective: list[Published] = []
    for row in rows:
        record = Published(**row.asDict())
        if record.mode in ("rebuild", "repair"):  # both replace the table at their close
            effective = [r for r in effective if r.close < record.close]
        effective.append(record)
    return effective, (rows[-1].seq if rows else 0) + 1


def append(home: Home, view: str, record: Published) -> None:
    df = home.spark.createDataFrame([{"view": view, **record.__dict__}]).select(
        F.col("view"), F.col("seq").cast("long"), F.col("close").cast("long"),
        F.col("version").cast("long"), F.col("mode"), F.col("events_seq").cast("long"),
        F.col("admitted").cast("long"), F.col("expired").cast("long"),
        F.col("derived").cast("long"), F.col("renewed").cast("long"),
        F.col("rounds").cast("int"), F.col("late").cast("long"),
        F.col("seconds").cast("double"), F.current_timestamp().alias("at"),
        F.col("violations").cast("long"), F.col("repairs").cast("long"),
    )
    (
        df.write.format("delta").mode("append")
        .option("txnAppId", f"view_state-{view}").option("txnVersion", record.seq)
        .save(home.path("view_state"))
    )


def latest_ingest_seq(home: Home) -> int:
    row = home.table("ingests").agg(F.max("seq").alias("m")).first()
    return row.m or 0
