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

import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.plan.durations import format_time
from reasonlake.declare.view import NAME_PATTERN
from reasonlake.engine.store import arrow_bridge
from reasonlake.spark import observed
from reasonlake.engine.store.arrow_bridge import to_spark
from reasonlake.engine.store import driver_reads, table_cache
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import ITEM_SCHEMA
from reasonlake.engine.process.timing import step
from reasonlake.plan.windows import Window

DAY_MS = 86_400_000


LATE = "arrived after the window that would hold it had closed and its time is past expiry at this close"
BEFORE_START = ("its time is at or before the start of the view's windows ({start}): no window of the "
                "view holds it (a view with an earlier `start` would)")

ITEM_COLUMNS = ["s", "p", "o", "origin", "rule", "n"]


@dataclass
class Admission:
    spark_items: DataFrame | None  # None: made from ``rows`` when asked for
    late: DataFrame | None  # s, p, o, ts, ingest_seq (strings), past expiry; None: none possible
    count: int
    rows: pl.DataFrame | None = None  # the items in the driver (ITEM_COLUMNS), when they fit
    spark: object = None
    distinct: int | None = None  # the rows of ``spark_items`` (one per triple), counted as they were made

    @property
    def items(self) -> DataFrame:
        """s, p, o, origin, rule, n (ids), one row per distinct triple, as a Spark frame:
        a close run in the driver never asks, and so never ships them to the JVM."""
        if self.spark_items is None:
            with step("admit: items to Spark"):
                self.spark_items = to_spark(self.spark, self.rows, ITEM_SCHEMA)
        return self.spark_items


def stream_events(home: Home, stream: str, upto_seq: int, lo: int, hi: int) -> DataFrame:
    """Events of a stream with lo < ts <= hi, partition-pruned by day."""
    return home.table("events").where(in_panes(stream, upto_seq, lo, hi))


def in_panes(stream: str, upto_seq: int, lo: int, hi: int) -> str:
    """``stream_events``'s condition, as SQL both Spark and DataFusion read."""
    return (f"stream = {stream_literal(stream)} AND ingest_seq <= {int(upto_seq)} AND ts_day >= {lo // DAY_MS} "
            f"AND ts_day <= {hi // DAY_MS} AND ts > {int(lo)} AND ts <= {int(hi)}")


def stream_literal(stream: str) -> str:
    """A stream's name as a SQL literal: names are identifiers (``NAME_PATTERN``), which
    both dialects quote alike."""
    if not NAME_PATTERN.fullmatch(stream):
        raise ValueError(f"not a stream name: {stream!r}")
    return f"'{stream}'"


def admit(
    home: Home, stream: str, window: Window, close: int, previous: int | None,
    seen_seq: int, upto_seq: int, driver_rows: int = 0,
) -> Admission:
    """driver_rows: how many items the close can take in the driver (0: it runs on Spark,
    the items stay there)."""
    opens = window.opens(close)
    lo = opens if previous is None else max(previous, opens)  # the fresh events: lo < ts <= close
    late_in = late_out = None  # conditions on the events table
    if previous is None:
        # Before the view's first close: the events at or before its start, which no window
        # of the view holds, are recorded as late rather than passed over in silence.
        late_out = (f"stream = {stream_literal(stream)} AND ingest_seq <= {int(upto_seq)} "
                    f"AND ts_day <= {opens // DAY_MS} AND ts <= {int(opens)}")
    elif seen_seq < upto_seq:  # only files ingested since the last close can be late
        arrived = f"ingest_seq > {int(seen_seq)}"
        if previous > opens:
            late_in = f"{in_panes(stream, upto_seq, opens, previous)} AND {arrived}"
        late_out = f"stream = {stream_literal(stream)} AND {arrived} AND ingest_seq <= {int(upto_seq)} AND ts <= {int(opens)}"
    if driver_rows > 0 and late_in is not None and _none_late(home, stream, seen_seq, upto_seq, previous):
        late_in = late_out = None  # this process wrote every event since: none is late
    if late_out is not None and driver_rows > 0 and _none_in_driver(home, late_out):
        late_out = None  # read here: none, so no Spark job to record them
    reason = (BEFORE_START.format(start=format_time(opens)) if previous is None else LATE)
    late = home.table("events").where(late_out).select("s", "p", "o", "ts", "ingest_seq", F.lit(reason).alias("reason")) \
        if late_out is not None else None
    # A pane small enough for a close in the driver comes there in one job, without the
    # shuffle of a grouping: it is grouped there, and counted, and the rules start from it.
    raw = None
    if driver_rows > 0:
        with step("admit: events"):
            raw = _fresh_rows(home, stream, upto_seq, lo, close, window.slide, driver_rows)
            if raw is not None and late_in is not None:  # read apart: the read-ahead holds no late one
                late_rows = _events(home, late_in, driver_rows - raw.height)
                raw = None if late_rows is None else pl.concat([raw, late_rows])
    if raw is not None:
        return Admission(None, late=late, count=raw.height, rows=_explicit_rows(raw), spark=home.spark)
    # the events as a Spark frame only now: a close in the driver never reads them through
    # Spark, and loading the table's log in the JVM took 0.05 s of a warm 0.3 s slide
    events = stream_events(home, stream, upto_seq, lo, close)
    if late_in is not None:
        events = events.unionByName(home.table("events").where(late_in))
    items, counted = observed.checkpointed(explicit_items(events), n=F.sum("n"), distinct=F.count(F.lit(1)))
    return Admission(items, late=late, count=int(counted["n"] or 0), distinct=counted["distinct"])


EVENT_COLUMNS = ["s_id", "p_id", "o_id", "ts"]
# A close in the driver reads the events of this many panes at once and keeps them for the
# closes that follow, while the events table is unchanged (an ingest makes the next close
# read again): a job per 32 closes instead of one per close.
READ_AHEAD_PANES = 32


def events_query(home: Home, sql: str):
    """``sql`` over the events table (named ``events``) in this process by delta-rs, as
    Arrow; None where Spark must read it."""
    return driver_reads.query(home.spark, {"events": (home.path("events"), None)}, sql)


def _events(home: Home, condition: str, limit: int) -> pl.DataFrame | None:
    """EVENT_COLUMNS of the events meeting ``condition``, in the driver; None past ``limit``.
    Read by delta-rs in this process where the home allows it, else through Spark."""
    found = events_query(home, f"SELECT {', '.join(EVENT_COLUMNS)} FROM events WHERE {condition} LIMIT {int(limit) + 1}")
    if found is None:
        found = arrow_bridge.collect_arrow(home.table("events").where(condition), EVENT_COLUMNS, limit=limit)
    return None if found is None or found.num_rows > limit else pl.from_arrow(found)


def _none_in_driver(home: Home, condition: str) -> bool:
    """Whether, read in this process, no event meets ``condition`` (False: some do, or Spark must say)."""
    found = events_query(home, f"SELECT ts FROM events WHERE {condition} LIMIT 1")
    return found is not None and found.num_rows == 0


@dataclass(frozen=True)
class ReadAhead:
    """The events of a stream with lo < ts <= until and ingest_seq <= seq, in the driver
    (None: too many; the next closes read their pane alone until an ingest). Kept with the
    events table's commit (``table_cache``): any commit by another writer retires it."""

    seq: int
    lo: int
    until: int
    rows: pl.DataFrame | None
    read_seq: int  # the ingests read from the table; later ones came through after_ingest
    appended: tuple[tuple[int, int], ...] = ()  # (seq, earliest time) of each of those


def _kept(home: Home, stream: str, upto_seq: int) -> ReadAhead | None:
    kept = table_cache.peek(home.spark, home.path("events"), ("panes ahead", stream))
    return kept if kept is not None and kept.seq == upto_seq else None


def _none_late(home: Home, stream: str, seen_seq: int, upto_seq: int, previous: int) -> bool:
    """Whether no event ingested after ``seen_seq`` has a time at or before ``previous``,
    known without a read: every one came through ``after_ingest`` of this process, after
    its earliest."""
    kept = _kept(home, stream, upto_seq)
    return (kept is not None and kept.read_seq <= seen_seq
            and all(earliest > previous for seq, earliest in kept.appended if seq > seen_seq))


def _fresh_rows(home: Home, stream: str, upto_seq: int, lo: int, hi: int, slide: int,
                limit: int) -> pl.DataFrame | None:
    """The (s_id, p_id, o_id, ts) events with lo < ts <= hi, in the driver; None past ``limit``.

    Read with the panes ahead of ``hi`` when they fit in ``limit``, and served from them at
    the next closes: the events table is append-only, the answer is kept with its commit
    (``table_cache``), and this process's ingests add theirs (``after_ingest``)."""
    path = home.path("events")
    # one entry per stream: the read-ahead of an earlier ingest does not linger in memory
    name = ("panes ahead", stream)
    kept = _kept(home, stream, upto_seq)
    alone = kept is not None and kept.rows is None
    in_pane = (pl.col("ts") > lo) & (pl.col("ts") <= hi)
    if kept is not None and not alone and kept.lo <= lo and hi <= kept.until:
        # the panes before this one are done with, and the ingests so far are read
        table_cache.remember(home.spark, path, name, table_cache.latest_commit(home.spark, path),
                             ReadAhead(upto_seq, lo, kept.until, kept.rows.filter(pl.col("ts") > lo), upto_seq))
        return kept.rows.filter(in_pane)
    commit = table_cache.latest_commit(home.spark, path)
    until = hi + (READ_AHEAD_PANES - 1) * slide
    rows = None if alone else _events(home, in_panes(stream, upto_seq, lo, until), limit)
    if rows is None:
        # the panes ahead are too many rows: this pane alone, and so at the next closes
        # (rows None) until an ingest, rather than a read-ahead that overflows every time
        if commit is not None:
            table_cache.remember(home.spark, path, name, commit, ReadAhead(upto_seq, lo, until, None, upto_seq))
        return _events(home, in_panes(stream, upto_seq, lo, hi), limit)
    if commit is not None:  # kept under the commit asked before the read (table_cache.read says why)
        table_cache.remember(home.spark, path, name, commit, ReadAhead(upto_seq, lo, until, rows, upto_seq))
    return rows.filter(in_pane)


def after_ingest(home: Home, stream: str, seq: int, before, events: pl.DataFrame) -> None:
    """This process appended ``events`` (EVENT_COLUMNS and more) of ingest ``seq`` to the
    events table, one commit after ``before``: the read-ahead kept for the stream takes the
    ones in its panes, so the next close does not read back what was just written, and
    notes their earliest time, so that it need not look for late ones either. Another
    commit in between makes the next close read the table (``table_cache``)."""
    earliest = events.get_column("ts").min()

    def update(kept: ReadAhead) -> ReadAhead:
        rows = kept.rows
        if rows is not None:
            fresh = events.select(EVENT_COLUMNS).filter((pl.col("ts") > kept.lo) & (pl.col("ts") <= kept.until))
            rows = pl.concat([rows, fresh])
        return ReadAhead(seq, kept.lo, kept.until, rows, kept.read_seq, kept.appended + ((seq, earliest),))

    table_cache.after_own_commit(home.spark, home.path("events"), ("panes ahead", stream), before, update)


def window_rows(home: Home, stream: str, upto_seq: int, lo: int, hi: int, limit: int) -> pl.DataFrame | None:
    """explicit_items of the events with lo < ts <= hi (ITEM_COLUMNS), in the driver: a
    rebuild's whole window; None past ``limit`` events."""
    events = _events(home, in_panes(stream, upto_seq, lo, hi), limit)
    return None if events is None else _explicit_rows(events)


def _explicit_rows(events: pl.DataFrame) -> pl.DataFrame:
    """explicit_items in the driver: (s_id, p_id, o_id, ts) events to ITEM_COLUMNS rows."""
    return events.group_by("s_id", "p_id", "o_id").agg(
        pl.col("ts").max().alias("origin"), pl.len().cast(pl.Int64).alias("n")
    ).select(
        pl.col("s_id").alias("s"), pl.col("p_id").alias("p"), pl.col("o_id").alias("o"), "origin",
        pl.lit("explicit").alias("rule"), "n",
    )


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
    rows, counted = observed.checkpointed(late.select(
        F.lit(view).alias("view"), "s", "p", "o", "ts", "ingest_seq", F.lit(close).cast("long").alias("close"),
        "reason",
    ), rows=F.count(F.lit(1)))
    count = counted["rows"]
    if count:
        (
            rows.write.format("delta").mode("append")
            .option("txnAppId", f"late-{view}").option("txnVersion", seq)
            .save(home.path("late"))
        )
        home.access.after_write(home.path("late"))
    return count


def next_event_time(home: Home, stream: str, after: int | None, upto_seq: int) -> int | None:
    """The earliest event time of the stream after ``after`` (None: any), ingests up to
    ``upto_seq``; read in this process where the home allows it."""
    condition = f"stream = {stream_literal(stream)} AND ingest_seq <= {int(upto_seq)}" + (
        "" if after is None else f" AND ts > {int(after)}")
    found = events_query(home, f"SELECT min(ts) AS t FROM events WHERE {condition}")
    if found is not None:
        return found.column("t")[0].as_py()
    return home.table("events").where(condition).agg(F.min("ts").alias("t")).first().t
