"""What entered and left a view between closes (RSP-QL's IStream and DStream).

Computed from the published versions, with no provenance kept per close: a fact of the
version published at processed close ``c_i`` is in the view at every window close from
``c_i`` up to (not including) the next processed close or its expiration pane, whichever
comes first (closes skipped for lack of work read the previous version less what expired).
Per triple, those intervals that touch make one stretch of presence: a renewal (the same
triple, a later origin) continues a stretch, so it is no change. A stretch's first close
is an entry (``+``), the close where it ends a departure (``-``). So the changes at a close
are exactly the set difference of the view's content there and at the close before it.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import Window as W
from pyspark.sql import functions as F

from reasonlake.compile.tbox import ANONYMOUS_PREFIX
from reasonlake.declare.durations import format_time
from reasonlake.engine import read
from reasonlake.engine.store import retention, state
from reasonlake.engine.store.dictionary import decode
from reasonlake.engine.store.home import Home
from reasonlake.errors import CloseError
from reasonlake.plan.windows import NEVER

SCHEMA = "close TIMESTAMP, op STRING, subject STRING, predicate STRING, object STRING, inferred BOOLEAN"


def changes(home: Home, view: str, after: int | None = None, upto: int | None = None) -> DataFrame:
    """The triples that entered (op ``+``) or left (``-``) the view at each window close in
    ``(after, upto]`` (default: the closes since the processed close before the last one)."""
    window = home.view(view).window
    history = state.readable(home, view)
    if not history:
        raise CloseError(f"view '{view}' has no processed close yet; run `reasonlake slide {view}`")
    last = history[-1].close
    upto = last if upto is None else upto
    if upto > last:
        raise CloseError(f"--to {format_time(upto)} is after the last processed close {format_time(last)}")
    if after is None:
        earlier = [r.close for r in history if r.close < upto]
        after = earlier[-1] if earlier else window.first_close - window.slide
    if after >= upto:
        raise CloseError(f"--from {format_time(after)} is not before --to {format_time(upto)}")
    # the records whose stretch of closes [c_i, c_i+1) reaches into (after, upto]
    nexts = [r.close for r in history[1:]] + [NEVER]
    used = [(r, n) for r, n in zip(history, nexts) if r.close <= upto and n > after]
    readable = retention.readable_versions(home, view)  # one history read for every record
    for record, _ in used:
        if readable is not None and record.version not in readable:
            raise retention.unreadable(home, view, max(record.close, after), readable)
    spans = None
    for record, until in used:
        facts = read.facts_at(home, view, record, record.close, record == history[-1])
        expires = F.when(F.col("origin") >= F.lit(NEVER), F.lit(NEVER)).otherwise(
            F.lit(window.first_close) + F.ceil((F.col("origin") - F.lit(window.start)) / F.lit(window.slide)).cast(
                "long") * F.lit(window.slide))
        part = facts.select("s", "p", "o", "rule", F.lit(record.close).cast("long").alias("start"),
                            F.least(F.lit(until).cast("long"), expires).alias("end"))
        spans = part if spans is None else spans.unionByName(part)
    order = W.partitionBy("s", "p", "o").orderBy("start")
    reach = F.max("end").over(order.rowsBetween(W.unboundedPreceding, -1))
    marked = spans.withColumn("fresh", F.when(reach.isNull() | (F.col("start") > reach), 1).otherwise(0))
    stretches = marked.withColumn("stretch", F.sum("fresh").over(order.rowsBetween(W.unboundedPreceding, 0))) \
        .groupBy("s", "p", "o", "stretch").agg(
            F.min("start").alias("start"), F.max("end").alias("end"), F.min_by("rule", "start").alias("rule"))
    inside = lambda c: (c > F.lit(after)) & (c <= F.lit(upto))  # noqa: E731
    entered = stretches.where(inside(F.col("start"))).select(
        F.col("start").alias("at"), F.lit("+").alias("op"), "s", "p", "o", "rule")
    left = stretches.where(inside(F.col("end"))).select(F.col("end").alias("at"), F.lit("-").alias("op"), "s", "p", "o", "rule")
    named = decode(entered.unionByName(left), home.table("terms"), {"s": "subject", "p": "predicate", "o": "object"})
    hidden = F.lit(f"<{ANONYMOUS_PREFIX}")
    named = named.where(~(F.col("subject").startswith(hidden) | F.col("predicate").startswith(hidden)
                          | F.col("object").startswith(hidden)))
    return named.select(F.timestamp_millis("at").alias("close"), "op", "subject", "predicate", "object",
                        (F.col("rule") != "explicit").alias("inferred")).orderBy("close", "op", "subject", "predicate", "object")


def rows(frame: DataFrame):
    """The changes as tuples (close ms, op, subject, predicate, object, inferred), in order."""
    for row in frame.withColumn("ms", F.unix_millis("close")).toLocalIterator():
        yield row.ms, row.op, row.subject, row.predicate, row.object, row.inferred
