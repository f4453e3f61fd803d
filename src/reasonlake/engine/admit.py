"""Admission: which events enter the window at a close, which arrived too late.

Events are read from the append-only `events` table, pinned to the ingests seen when the
slide started (``events_seq``), so an ingest running at the same time is picked up whole at
the next close, never half. An event enters at the first processed close whose pane holds
its time; a late one (ingested after the close of its pane was processed) enters at the
next close with its own time as origin if it is still inside the window, and is recorded
as late otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine import local_rules, table_cache
from reasonlake.engine.home import Home
from reasonlake.plan.windows import Window

DAY_MS = 86_400_000


ITEM_COLUMNS = ["s", "p", "o", "origin", "rule", "n"]
ITEM_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING, n BIGINT"


@dataclass
class Admission:
    items: DataFrame  # s, p, o, origin, rule, n (ids), one row per distinct triple
    late: DataFrame | None  # s, p, o, ts, ingest_seq (strings), past expiry; None: none possible
    count: int
    rows: list[tuple] | None = None  # the items in the driver (ITEM_COLUMNS), when few


def stream_events(home: Home, stream: str, upto_seq: int, lo: int, hi: int) -> DataFrame:
    """Events of a stream with lo < ts <= hi, partition-pruned by day."""
    return home.table("events").where(
        (F.col("stream") == stream)
        & (F.col("ingest_seq") <= upto_seq)
        & (F.col("ts_day") >= F.floor(F.lit(lo) / DAY_MS))
        & (F.col("ts_day") <= F.floor(F.lit(hi) / DAY_MS))
        & (F.col("ts") > lo)
        & (F.col("ts") <= hi)
    )


def admit(
    home: Home, stream: str, window: Window, close: int, previous: int | None,
    seen_seq: int, upto_seq: int, driver_rows: int = 0,
) -> Admission:
    """driver_rows: how many items the close can take in the driver (0: it runs on Spark,
    the items stay there)."""
    opens = window.opens(close)
    lo = opens if previous is None else max(previous, opens)  # the fresh events: lo < ts <= close
    fresh = stream_events(home, stream, upto_seq, lo, close)
    late_in = late_out = None
    if previous is not None:
        arrived = F.col("ingest_seq") > seen_seq
        if seen_seq < upto_seq:  # only files ingested since the last close can be late
            if previous > opens:
                late_in = stream_events(home, stream, upto_seq, opens, previous).where(arrived)
            late_out = home.table("events").where(
                (F.col("stream") == stream) & arrived & (F.col("ingest_seq") <= upto_seq)
                & (F.col("ts") <= opens)
            )
    events = fresh if late_in is None else fresh.unionByName(late_in)
    late = late_out.select("s", "p", "o", "ts", "ingest_seq") if late_out is not None else None
    # A pane small enough for a close in the driver comes there in one job, without the
    # shuffle of a grouping: it is grouped there, and counted, and the rules start from it.
    raw = None
    if driver_rows > 0:
        raw = (
            local_rules.collect(events, EVENT_COLUMNS, limit=driver_rows) if late_in is not None
            else _fresh_rows(home, stream, upto_seq, lo, close, window.slide, driver_rows)
        )
    if raw is not None:
        rows = _explicit_rows(raw)
        return Admission(items=local_rules.frame(home.spark, rows, ITEM_SCHEMA), late=late,
                         count=len(raw), rows=rows)
    items = explicit_items(events).localCheckpoint()
    return Admission(items=items, late=late, count=int(items.agg(F.sum("n")).first()[0] or 0))


EVENT_COLUMNS = ["s_id", "p_id", "o_id", "ts"]
# A close in the driver reads the events of this many panes at once and keeps them for the
# closes that follow, while the events table is unchanged (an ingest makes the next close
# read again): a job per 32 closes instead of one per close.
READ_AHEAD_PANES = 32


def _fresh_rows(home: Home, stream: str, upto_seq: int, lo: int, hi: int, slide: int,
                limit: int) -> list[tuple] | None:
    """The (s, p, o, ts) events with lo < ts <= hi, in the driver; None past ``limit``.

    Read with the panes ahead of ``hi`` when they fit in ``limit``, and served from them at
    the next closes: the events table is append-only and the answer is kept with its commit
    (``table_cache``), so any ingest makes the next close read again."""
    path = home.path("events")
    # one entry per stream: the read-ahead of an earlier ingest does not linger in memory
    name = ("panes ahead", stream)
    kept = table_cache.peek(home.spark, path, name)
    kept = kept if kept is not None and kept[0] == upto_seq else None  # (seq, lo, until, rows)
    alone = kept is not None and kept[3] is None
    if kept is not None and not alone and kept[1] <= lo and hi <= kept[2]:
        return [e for e in kept[3] if lo < e[3] <= hi]
    commit = table_cache.latest_commit(home.spark, path)
    until = hi + (READ_AHEAD_PANES - 1) * slide
    rows = None if alone else local_rules.collect(
        stream_events(home, stream, upto_seq, lo, until), EVENT_COLUMNS, limit=limit)
    if rows is None:
        # the panes ahead are too many rows: this pane alone, and so at the next closes
        # (rows None) until an ingest, rather than a read-ahead that overflows every time
        if commit is not None:
            table_cache.remember(home.spark, path, name, commit, (upto_seq, lo, until, None))
        return local_rules.collect(stream_events(home, stream, upto_seq, lo, hi), EVENT_COLUMNS, limit=limit)
    if commit is not None and table_cache.latest_commit(home.spark, path) == commit:
        table_cache.remember(home.spark, path, name, commit, (upto_seq, lo, until, rows))
    return [e for e in rows if e[3] <= hi]


def _explicit_rows(events: list[tuple]) -> list[tuple]:
    """explicit_items in the driver: (s, p, o, ts) events to ITEM_COLUMNS rows."""
    latest: dict = {}
    for s, p, o, ts in events:
        key = (s, p, o)
        seen = latest.get(key)
        latest[key] = (ts, 1) if seen is None else (max(seen[0], ts), seen[1] + 1)
    return [(*key, ts, "explicit", n) for key, (ts, n) in latest.items()]


def explicit_items(events: DataFrame) -> DataFrame:
    """One candidate fact per distinct triple: its latest time is its origin."""
    return events.groupBy(
        F.col("s_id").alias("s"), F.col("p_id").alias("p"), F.col("o_id").alias("o")
    ).agg(F.max("ts").alias("origin"), F.count("*").alias("n")).select(
        "s", "p", "o", "origin", F.lit("explicit").alias("rule"), "n"
    )


def record_late(home: Home, view: str, late: DataFrame | None, close: int, seq: int) -> int:
    """Append the late events to the `late` table once per close (idempotent on re-run)."""
    if late is None:
        return 0
    rows = late.select(
        F.lit(view).alias("view"), "s", "p", "o", "ts", "ingest_seq", F.lit(close).cast("long").alias("close"),
        F.lit(
            "arrived after the window that would hold it had closed and its time is past "
            "expiry at this close"
        ).alias("reason"),
    ).localCheckpoint()
    count = rows.count()
    if count:
        (
            rows.write.format("delta").mode("append")
            .option("txnAppId", f"late-{view}").option("txnVersion", seq)
            .save(home.path("late"))
        )
    return count


def next_event_time(home: Home, stream: str, after: int | None, upto_seq: int) -> int | None:
    events = home.table("events").where((F.col("stream") == stream) & (F.col("ingest_seq") <= upto_seq))
    if after is not None:
        events = events.where(F.col("ts") > after)
    return events.agg(F.min("ts").alias("t")).first().t
