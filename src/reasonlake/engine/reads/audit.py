"""Why a fact vanished: the repair log read back as N-Triples, and the fact's presence in
the published closes (its origin, its expiry) (`reasonlake explain`)."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.engine.reason.program_tables import term_ids
from reasonlake.engine.store import driver_reads, repair_tables, state, table_log
from reasonlake.engine.store.home import Home
from reasonlake.errors import UsageError
from reasonlake.parse.terms import OBJECT, PREDICATE, SUBJECT, TermError, normalize_term, split_statement


@dataclass(frozen=True)
class TimedTriple:
    triple: str  # N-Triples statement
    ts: int


@dataclass(frozen=True)
class RemovalRecord:
    removed: TimedTriple
    close: int
    version: int
    mode: str  # slide | repair
    rule: str
    conflict: tuple[TimedTriple, ...]
    winners: tuple[TimedTriple, ...]
    expires: int  # when the removed item would have left the window anyway


def parse_triple(text: str, flag: str = "--removed") -> tuple[str, str, str]:
    line = text.strip()
    if not line.endswith("."):
        line += " ."
    try:
        tokens = split_statement(line)
        if len(tokens) != 3:
            raise TermError(f"found {len(tokens)} terms")
        return tuple(normalize_term(t, pos) for t, pos in zip(tokens, (SUBJECT, PREDICATE, OBJECT)))
    except TermError as exc:
        raise UsageError(
            f"{flag} {text!r}: not one N-Triples statement ({exc}); write it as "
            "\"<http://ex.org/s> <http://ex.org/p> <http://ex.org/o>\""
        ) from None


def removals(home: Home, view: str, triple_text: str) -> list[RemovalRecord]:
    """The repair log's records of the triple (none for a view without repair)."""
    decl = home.view(view)
    s, p, o = parse_triple(triple_text)
    if not table_log.is_delta(home.spark, repair_tables.repairs_path(home, view)):
        return []
    ids = term_ids(home.spark, {s, p, o})
    rows = (
        home.spark.read.format("delta").load(repair_tables.repairs_path(home, view))
        .where((F.col("removed.s") == ids[s]) & (F.col("removed.p") == ids[p]) & (F.col("removed.o") == ids[o]))
        .orderBy("close", "removed.ts")
        .collect()
    )
    wanted = {x for r in rows for i in [r.removed, *r.conflict, *r.winners] for x in (i.s, i.p, i.o)}
    names = {}
    if wanted:
        terms = home.table("terms").where(F.col("id").isin(sorted(wanted))).collect()
        names = {t.id: t.term for t in terms}

    def timed(i) -> TimedTriple:
        return TimedTriple(" ".join(names.get(x, f"_:unknown{x}") for x in (i.s, i.p, i.o)) + " .", i.ts)

    return [
        RemovalRecord(timed(r.removed), r.close, r.version, r.mode, r.rule,
                      tuple(timed(i) for i in r.conflict), tuple(timed(i) for i in r.winners),
                      decl.window.expiration_pane(r.removed.ts))
        for r in rows
    ]


@dataclass(frozen=True)
class Presence:
    """Where a fact stands in a view's published closes (``presence``)."""
    triple: str
    last_close: int | None  # the view's last processed close
    seen_close: int | None  # the latest close (of those searched) at which the fact was in the view
    origin: int | None  # its origin there (the time of its oldest premise)
    rule: str | None  # `explicit` or the W3C id of the rule that derived it
    left_close: int | None  # the close after seen_close, when it was gone
    expired: bool  # it left because origin + width had passed (not retracted or repaired)
    expires: int | None  # origin + width
    searched: int  # closes read, latest first


# Closes read back at most, latest first: each is one small filtered read of a Delta version.
PRESENCE_CLOSES = 64


def _rows_of(home: Home, view: str, version: int, key: tuple[int, int, int], opens: int) -> list[tuple[int, str]]:
    """(origin, rule) of the fact's live rows in one published version of the view's table:
    read here where the home allows it (no session started for it), else by Spark."""
    s, p, o = key
    found = driver_reads.answer(home.spark, {"mat": (home.mat_path(view), version)},
                                f"SELECT origin, rule FROM {{mat}} WHERE s = {s} AND p = {p} AND o = {o} AND origin > {opens}")
    return list(zip(found.column("origin").to_pylist(), found.column("rule").to_pylist()))


def presence(home: Home, view: str, triple_text: str) -> Presence:
    """When a fact was last in the view, with which origin and rule, and why it left: its
    origin plus the window's width had passed (expiry), or not (its premises left or repair
    removed it). Reads the view's published versions, latest first."""
    decl = home.view(view)
    window = decl.window
    s, p, o = parse_triple(triple_text)
    triple = f"{s} {p} {o} ."
    history = state.lineage(home, view)
    if not history:
        return Presence(triple, None, None, None, None, None, False, None, 0)
    ids = term_ids(home.spark, {s, p, o})
    later = None
    searched = 0
    for record in reversed(history[-PRESENCE_CLOSES:]):
        searched += 1
        rows = _rows_of(home, view, record.version, (ids[s], ids[p], ids[o]), window.opens(record.close))
        if rows:
            origin, rule = max(rows)
            expires = window.expires(origin)
            left = later.close if later is not None else None
            return Presence(triple, history[-1].close, record.close, origin, rule, left,
                            left is not None and window.opens(left) >= origin, expires, searched)
        later = record
    return Presence(triple, history[-1].close, None, None, None, None, False, None, searched)
