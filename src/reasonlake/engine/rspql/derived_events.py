"""Derived facts as event occurrences (decision 0074, "Derived events").

Under a query's entailment regime a basic event pattern matches each item's *so-far
closure* (the thesis, Definition 7.5 and Figure 7.2): the item's statements and every fact
the window's items up to the item's time entail with the ontology through a derivation that
uses the item. A fact "starts to hold when the most recent of [its premises] appears", so a
derived fact occurs at the time of the newest premise of each of its derivations: once per
distinct newest premise, so that a later item deriving it again makes a new occurrence. Its
item is the one at that time: the item consumed when an answer uses the occurrence.

How: the window's view's compiled rules run in Polars (``driver_rules.derive``) over facts
whose origin column holds *minus* the time of their newest premise. A derivation's origin is
the least of its premises' (IMaRS's expiration rule), which is minus the greatest time: the
newest premise. Every (fact, time) pair is kept, where a close keeps one per fact. Background
facts of the ontology carry the engine's NEVER and so never set a time; a fact derived from
them alone is not an event.
"""
from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from reasonlake.engine.reason.driver_rules import derive, empty, fixpoint, vector_program
from reasonlake.engine.reason.program_tables import CONSTANT, ProgramTables
from reasonlake.engine.store.dictionary import driver_term_id, driver_term_ids
from reasonlake.engine.store.schemas import EXPLICIT, FACT_FRAME_SCHEMA, KEY
from reasonlake.plan.windows import NEVER

TS, ITEM = "$ts", "$item"
_TIMED = [*KEY, "origin"]  # a fact at one time: the key of what a round keeps
_ROUNDS = 10_000  # a guard: the (fact, time) pairs are finite, so the rounds end long before


def can_match(tables: ProgramTables, patterns: Iterable[tuple]) -> bool:
    """Whether a fact the rules derive can match one of the patterns' triples (constants in
    N-Triples, variables as 1-tuples): a window whose events are read only by patterns on
    what no rule derives is not closed (with no ENTAILMENT, no rule derives anything)."""
    heads = _heads(vector_program(tables))
    if heads is None:
        return True
    for _, p, o in patterns:
        if isinstance(p, tuple):
            return True
        predicate = driver_term_id(p)
        if (predicate, None) in heads or (predicate, None if isinstance(o, tuple) else driver_term_id(o)) in heads:
            return True
        if isinstance(o, tuple) and any(head == predicate for head, _ in heads):
            return True
    return False


def _heads(program) -> set[tuple[int, int | None]] | None:
    """What the rules' heads can be: (predicate, object, or None for any); None: anything.
    Kept on the program (compiled once per view), not walked again at each evaluation."""
    if "_heads" not in program.__dict__:
        program.__dict__["_heads"] = _walked_heads(program)
    return program.__dict__["_heads"]


def _walked_heads(program) -> set[tuple[int, int | None]] | None:
    heads = set()
    for rules in (program.by_value, program.by_property):
        for out_p, out_o_from, out_o in rules.select("out_p", "out_o_from", "out_o").iter_rows():
            heads.add((out_p, out_o if out_o_from == CONSTANT else None))
    heads |= {(p, None) for p in program.transitive.get_column("p").to_list()}
    for group in program.joins:
        (p_kind, p_slot), (o_kind, o_slot) = group.head[1], group.head[2]
        if p_kind != "k":
            return None
        for row in group.rows:
            heads.add((row[p_slot + 1], row[o_slot + 1] if o_kind == "k" else None))
    return heads


def with_derived(items: pl.DataFrame, tables: ProgramTables, terms: Iterable[str]) -> pl.DataFrame:
    """``items`` (subject, predicate, object, ``$ts``, ``$item``) and the facts derived from
    them at each of their times, on the item of that time; ``terms``: the rules' constants,
    which a derived fact may hold."""
    if items.height == 0:
        return items
    ids = driver_term_ids(pl.concat([items.get_column(c) for c in ("subject", "predicate", "object")]
                                    + [pl.Series(list(terms), dtype=pl.String)]))
    seed = _encoded(items, ids)
    found = _timed_fixpoint(vector_program(tables), seed, tables.driver_background)
    derived = found.filter(pl.col("origin") != NEVER).join(seed, on=_TIMED, how="anti")
    if derived.height == 0:
        return items
    names = ids.select(pl.col("id"), pl.col("term"))
    decoded = derived.select(*KEY, (-pl.col("origin")).alias(TS))
    for column, name in zip(KEY, ("subject", "predicate", "object")):
        decoded = decoded.join(names.rename({"id": column, "term": name}), on=column, how="inner")
    keys = items.select(TS, ITEM).unique()
    rows = decoded.join(keys, on=TS, how="inner").select(items.columns)
    return pl.concat([items, rows.cast(items.schema)]).unique()


def _encoded(items: pl.DataFrame, ids: pl.DataFrame) -> pl.DataFrame:
    """The items as facts: term ids, and minus their time as the origin."""
    frame = items.select("subject", "predicate", "object", TS)
    for name, column in zip(("subject", "predicate", "object"), KEY):
        frame = frame.join(ids.rename({"term": name, "id": column}), on=name, how="inner")
    return frame.select(*KEY, (-pl.col(TS)).alias("origin"), pl.lit(EXPLICIT).alias("rule")
                        ).cast(FACT_FRAME_SCHEMA).unique(_TIMED)


def _timed_fixpoint(program, seed: pl.DataFrame, background: pl.DataFrame | None) -> pl.DataFrame:
    """Every (fact, minus newest premise time) reachable from ``seed`` and the background.

    Pairing every time of one premise with every time of another would build, for a
    transitive property restated often, a row per combination (37 million for 100 thousand
    pairs at 3,000 items). It is not needed: a rule instance gives its head the time t of
    one premise exactly when each other premise already holds at t, i.e. its *earliest*
    time is at most t. So the earliest times come first (the engine's own fixpoint, one row
    per fact: the best origin is minus the earliest newest-premise time), and then each new
    (fact, time) pair is joined with the other premises' earliest times only, the least of
    the origins being the pair's own time or the later earliest time, both of them times
    the head holds at."""
    facts = seed if background is None else pl.concat([seed, background.cast(FACT_FRAME_SCHEMA)]).unique(_TIMED)
    earliest = fixpoint(program, empty(), facts).known.select(FACT_FRAME_SCHEMA.keys())
    known = delta = facts
    for _ in range(_ROUNDS):
        candidates = derive(program, delta, earliest.lazy()).collect().unique(_TIMED)
        delta = candidates.join(known, on=_TIMED, how="anti")
        if delta.height == 0:
            return known
        known = pl.concat([known, delta])
    raise RuntimeError("derived events: the rules did not reach a fixpoint")  # unreachable: pairs are finite
