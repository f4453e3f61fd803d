"""Why a fact vanished: the repair log read back as N-Triples (`reasonlake explain`)."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.engine import repair as rep
from reasonlake.engine.home import Home
from reasonlake.engine.program_tables import term_ids
from reasonlake.errors import UserError


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


def parse_triple(text: str) -> tuple[str, str, str]:
    from reasonlake.parse.terms import OBJECT, PREDICATE, SUBJECT, TermError, normalize_term, split_statement

    line = text.strip()
    if not line.endswith("."):
        line += " ."
    try:
        tokens = split_statement(line)
        if len(tokens) != 3:
            raise TermError(f"found {len(tokens)} terms")
        return tuple(normalize_term(t, pos) for t, pos in zip(tokens, (SUBJECT, PREDICATE, OBJECT)))
    except TermError as exc:
        raise UserError(
            f"--removed {text!r}: not one N-Triples statement ({exc}); write it as "
            "\"<http://ex.org/s> <http://ex.org/p> <http://ex.org/o>\""
        ) from None


def removals(home: Home, view: str, triple_text: str) -> list[RemovalRecord]:
    from delta.tables import DeltaTable

    decl = home.view(view)
    if not DeltaTable.isDeltaTable(home.spark, rep.repairs_path(home, view)):
        raise UserError(f"view '{view}' has repair: none; it never removes a fact (see `reasonlake violations {view}`)")
    s, p, o = parse_triple(triple_text)
    ids = term_ids(home.spark, {s, p, o})
    rows = (
        home.spark.read.format("delta").load(rep.repairs_path(home, view))
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
