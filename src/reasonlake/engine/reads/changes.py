"""What entered and left a view between closes (RSP-QL's IStream and DStream).

Computed from the published versions, with no provenance kept per close: a fact of the
version published at processed close ``c_i`` is in the view at every window close from
``c_i`` up to (not including) the next processed close or its expiration pane, whichever
comes first (closes skipped for lack of work read the previous version less what expired).
Per triple, those intervals that touch make one stretch of presence: a renewal (the same
triple, a later origin) continues a stretch, so it is no change. A stretch's first close
is an entry (``+``), the close where it ends a departure (``-``). So the changes at a close
are exactly the set difference of the view's content there and at the close before it.

The computation is one SQL text (``_sql``) over the versions read and the term dictionary,
run by delta-rs's DataFusion in this process where ``driver_reads`` can read the tables
(a local home: the command answers without Spark), else by Spark with the same text.
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.plan.durations import format_time
from reasonlake.engine.store import driver_reads, retention, state
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.home import Home
from reasonlake.errors import CloseError
from reasonlake.plan.windows import NEVER

SCHEMA = "close TIMESTAMP, op STRING, subject STRING, predicate STRING, object STRING, inferred BOOLEAN"
_ORDER = "at_ms, op, subject, predicate, object"


@dataclass(frozen=True)
class Span:
    """One published version read: the view's rows live at ``close``, present until ``until``."""
    version: int | None  # None: the latest snapshot
    close: int
    until: int


def changes(home: Home, view: str, after: int | None = None, upto: int | None = None):
    """The triples that entered (op ``+``) or left (``-``) the view at each window close in
    ``(after, upto]`` (default: the closes since the processed close before the last one),
    as a Spark DataFrame of ``SCHEMA``."""
    spans, after, upto = _spans(home, view, after, upto)
    tables = {f"m{i}": _version(home, view, s.version) for i, s in enumerate(spans)}
    text = _sql(decoding.SPARK, home.view(view).window, spans, after, upto, [f"{{m{i}}}" for i in range(len(spans))], "{terms}")
    found = home.spark.sql(text, **tables, terms=home.table("terms"))
    return found.selectExpr("timestamp_millis(at_ms) AS close", "op", "subject", "predicate", "object", "inferred")


def _version(home: Home, view: str, version: int | None):
    reader = home.spark.read.format("delta")  # a new reader each time: ``option`` changes the reader it is called on
    return (reader if version is None else reader.option("versionAsOf", version)).load(home.mat_path(view))


def rows(home: Home, view: str, after: int | None = None, upto: int | None = None):
    """The changes as tuples (close ms, op, subject, predicate, object, inferred), in order:
    read in this process where the home allows it, else through Spark."""
    spans, after, upto = _spans(home, view, after, upto)
    names = [f"m{i}" for i in range(len(spans))]
    window = home.view(view).window

    def render(dialect, named: dict[str, str]) -> str:
        return _sql(dialect, window, spans, after, upto, [named[n] for n in names], named["terms"])

    yield from driver_reads.stream(home.spark, {**{n: (home.mat_path(view), s.version) for n, s in zip(names, spans)},
                                                "terms": (home.path("terms"), None)}, render,
                                   ["at_ms", "op", "subject", "predicate", "object", "inferred"])


def _spans(home: Home, view: str, after: int | None, upto: int | None) -> tuple[list[Span], int, int]:
    """The versions whose stretch of closes [c_i, c_i+1) reaches into (after, upto], with the
    bounds settled (checked readable: a vacuumed close is one clear error)."""
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
    nexts = [r.close for r in history[1:]] + [NEVER]
    used = [(r, n) for r, n in zip(history, nexts) if r.close <= upto and n > after]
    readable = retention.readable_versions(home, view)  # one history read for every record
    for record, _ in used:
        if readable is not None and record.version not in readable:
            raise retention.unreadable(home, view, max(record.close, after), readable)
    latest = history[-1]
    spans = [Span(retention.pinned(home, home.mat_path(view), r.version) if r == latest else r.version, r.close, until)
             for r, until in used]
    return spans, after, upto


def _sql(dialect, window, spans: list[Span], after: int, upto: int, tables: list[str], terms: str) -> str:
    """The changes in ``(after, upto]`` as rows (at_ms, op, subject, predicate, object,
    inferred), ordered; ``tables[i]`` names the view's table at ``spans[i].version``."""
    leaves = decoding.expiration_pane(window, "origin")
    present = " UNION ALL ".join(
        f"SELECT s, p, o, rule, CAST({s.close} AS BIGINT) AS start_ms, "
        f"CASE WHEN {leaves} < {s.until} THEN {leaves} ELSE CAST({s.until} AS BIGINT) END AS end_ms "
        f"FROM {table} WHERE {decoding.in_window(window, s.close, 'origin')}"
        for s, table in zip(spans, tables))
    by_triple = "PARTITION BY s, p, o ORDER BY start_ms"
    # a row starts a stretch when no earlier row of its triple reaches its start
    marked = (f"SELECT *, CASE WHEN MAX(end_ms) OVER ({by_triple} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) "
              f">= start_ms THEN 0 ELSE 1 END AS fresh FROM ({present}) present")
    numbered = f"SELECT *, SUM(fresh) OVER ({by_triple} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS stretch FROM ({marked}) marked"
    stretches = (f"SELECT s, p, o, MIN(start_ms) AS start_ms, MAX(end_ms) AS end_ms, "
                 f"MAX(CASE WHEN fresh = 1 THEN rule END) AS rule FROM ({numbered}) numbered GROUP BY s, p, o, stretch")
    inside = lambda c: f"{c} > {after} AND {c} <= {upto}"  # noqa: E731
    moves = (f"SELECT start_ms AS at_ms, '+' AS op, s, p, o, rule FROM stretches WHERE {inside('start_ms')} UNION ALL "
             f"SELECT end_ms AS at_ms, '-' AS op, s, p, o, rule FROM stretches WHERE {inside('end_ms')}")
    joins = decoding.term_joins(terms, "c.{}", alias="t")
    named = tuple(f"t{x}.term" for x in "spo")
    return (f"WITH stretches AS ({stretches}) "
            f"SELECT c.at_ms, c.op, {', '.join(decoding.term_columns(named))}, c.rule <> 'explicit' AS inferred "
            f"FROM ({moves}) c {joins} WHERE {decoding.visible(dialect, named)} ORDER BY {_ORDER}")
