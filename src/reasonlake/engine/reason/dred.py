"""Delete and re-derive (DRed) over the (max, min) semiring of origins.

When repair removes explicit items already in the materialization, the facts whose origin
they gave must go or get the origin their other derivations give:
1. Over-delete: starting from the removed items' facts, every fact one rule application
   reaches *with an origin at least its own* may owe its origin to them; a derivation with
   an earlier origin never set a fact's origin (the max over derivations did), so the
   over-deletion stops there instead of spreading through the whole window.
2. Re-derive: each over-deleted fact's remaining support, i.e. its surviving explicit items
   and every derivation from the facts left, seeds the ordinary semi-naive insertion, which
   restores it (with its correct origin) and everything that follows from it.
Every derivation's head shares a term with one of its premises in subject or object
position (OWL 2 RL rules are safe), so only the remaining facts that touch an over-deleted
fact's subject take part in step 2's one rule application.

Over-deletion runs in the driver when what it reaches is small (the usual repair: a few
thousand losers among millions of facts): the facts it can touch are read from the table
once per hop (``_Neighbourhood``) and the rounds run on them (``driver_matching.derive``),
instead of a pass over the whole table per round.
"""
from __future__ import annotations

from collections import Counter

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.store import arrow_bridge
from reasonlake.engine.reason import budget, driver_matching, spark_joins
from reasonlake.engine.reason.program_tables import ProgramTables
from reasonlake.engine.reason.spark_rounds import BROADCAST_ROWS, derive
from reasonlake.engine.store.schemas import EXPLICIT, FACT_SCHEMA, KEY


def overdelete(spark, base: DataFrame, seeds: DataFrame, tables: ProgramTables) -> tuple[DataFrame, int]:
    """base: the materialization (s, p, o, origin, rule); seeds: its rows to delete.
    Returns every row of base whose origin may depend on them (seeds included), and how
    many rows that is (each round's Δ is counted anyway)."""
    if budget.enabled(0):
        found = _overdelete_in_driver(spark, base, seeds, tables)
        if found is not None:
            return found
    deleted = seeds.select(*KEY, "origin", "rule").localCheckpoint()
    delta = deleted
    full = base.select(*KEY, "origin")
    base_rows = base.count()
    total = 0
    while True:
        size, present = spark_joins.summarize(delta, tables.type_id)
        if size == 0:
            break
        total += size
        reached = derive(spark, delta, full, tables, present, small=size <= BROADCAST_ROWS,
                         full_small=base_rows <= BROADCAST_ROWS)
        best = reached.groupBy(*KEY).agg(F.max("origin").alias("d_origin"))
        if size <= BROADCAST_ROWS:  # a small Δ reaches few facts: look them up, never shuffle base
            best = F.broadcast(best)
        hit = (
            base.join(best, KEY)
            .where(F.col("d_origin") >= F.col("origin"))
            .select(*KEY, "origin", "rule")
            .join(deleted.select(*KEY), KEY, "left_anti")
            .localCheckpoint()
        )
        deleted = deleted.unionByName(hit).localCheckpoint()
        delta = hit
    return deleted, total


def rederive_seed(spark, remaining: DataFrame, deleted: DataFrame, items: DataFrame,
                  tables: ProgramTables) -> DataFrame:
    """Candidate facts (s, p, o, origin, rule) that restore over-deleted facts.

    remaining: the materialization without the over-deleted rows; items: the window's
    surviving explicit items (s, p, o, ts)."""
    keys = deleted.select(*KEY)
    subjects = deleted.select(F.col("s").alias("t")).distinct()
    touching = remaining.join(F.broadcast(subjects), remaining.s == subjects.t, "left_semi").unionByName(
        remaining.join(F.broadcast(subjects), remaining.o == subjects.t, "left_semi")
    ).distinct().localCheckpoint()
    size, present = spark_joins.summarize(touching, tables.type_id)
    parts = []
    if size:
        full = remaining.select(*KEY, "origin")
        derived = derive(spark, touching.select(*KEY, "origin"), full, tables, present,
                         small=size <= BROADCAST_ROWS, full_small=False)
        parts.append(derived.join(F.broadcast(keys), KEY, "left_semi"))
    explicit = items.join(F.broadcast(keys), KEY, "left_semi").groupBy(*KEY).agg(
        F.max("ts").alias("origin")
    ).select(*KEY, "origin", F.lit(EXPLICIT).alias("rule"))
    parts.append(explicit)
    if tables.background is not None:
        parts.append(tables.background.join(F.broadcast(keys), KEY, "left_semi").select(*KEY, "origin", "rule"))
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out


def _join_positions(tables: ProgramTables) -> tuple[set[int], set[int]] | None:
    """Predicates whose subject / object a multi-premise rule joins on (a variable two of its
    atoms share; transitive properties both); None when a rule has a variable predicate."""
    transitive = set(driver_matching.local_program(tables).transitive)
    join_s, join_o = set(transitive), set(transitive)
    for group in tables.joins:
        uses = Counter(value for atom in group.body for kind, value in atom if kind == "v")
        for (s_kind, s_value), (p_kind, p_slot), (o_kind, o_value) in group.body:
            if p_kind == "v":
                return None
            predicates = {row[1 + p_slot] for row in group.rows}
            if s_kind == "v" and uses[s_value] > 1:
                join_s |= predicates
            if o_kind == "v" and uses[o_value] > 1:
                join_o |= predicates
    return join_s, join_o


class _Neighbourhood:
    """The table's facts about some terms, read into the driver on demand: every fact whose
    subject is one of them, and every fact whose object is one of them under a predicate a
    rule joins on by object. A term's facts are read once; ``too_big`` past the budget."""

    def __init__(self, spark, base: DataFrame, join_s: set[int], join_o: set[int]):
        self.spark, self.base, self.join_s, self.join_o = spark, base, join_s, join_o
        self.terms: set[int] = set()
        self.known: dict = {}  # (s, p, o) -> (origin, rule)
        self.full = driver_matching.Index()
        self.too_big = False

    def read(self, terms: set[int], hops: int) -> None:
        """The facts about ``terms`` and, ``hops`` times, about the terms those facts join on."""
        frontier = terms - self.terms
        for hop in range(hops + 1):
            if not frontier or self.too_big:
                return
            rows = self._fetch(frontier)
            self.terms |= frontier
            if rows is None or len(self.known) + len(rows) > budget.search_rows():
                self.too_big = True
                return
            grown = set()
            for s, p, o, origin, rule in rows:
                if (s, p, o) not in self.known:
                    self.known[(s, p, o)] = (origin, rule)
                    self.full.add((s, p, o, origin))
                if p in self.join_s:
                    grown.add(s)
                if p in self.join_o:
                    grown.add(o)
            frontier = grown - self.terms

    def _fetch(self, terms: set[int]) -> list[tuple] | None:
        wanted = F.broadcast(arrow_bridge.rows_frame(self.spark, [(t,) for t in sorted(terms)], "t BIGINT"))
        found = self.base.join(wanted, self.base.s == wanted.t, "left_semi")
        if self.join_o:
            by_object = self.base.where(F.col("p").isin(sorted(self.join_o)))
            found = found.unionByName(by_object.join(wanted, by_object.o == wanted.t, "left_semi"))
        return arrow_bridge.collect(found, [*KEY, "origin", "rule"], limit=budget.search_rows())


def _overdelete_in_driver(spark, base: DataFrame, seeds: DataFrame,
                          tables: ProgramTables) -> tuple[DataFrame, int] | None:
    """``overdelete`` in the driver; None when the rules or what they reach do not suit it.

    Per round, the facts Δ can join with are read (a k-premise rule needs k - 1 hops from
    Δ's terms), one rule application runs in the driver, and the heads' own facts are read
    by subject to compare origins: every fact about a term read is in the driver, so a head
    missing there is not in the table."""
    positions = _join_positions(tables)
    if positions is None:
        return None
    seed_rows = arrow_bridge.collect(seeds, [*KEY, "origin", "rule"], limit=budget.search_rows())
    if seed_rows is None:
        return None
    hops = max((len(g.body) for g in tables.joins), default=1) - 1
    program = driver_matching.local_program(tables)
    near = _Neighbourhood(spark, base, *positions)
    deleted = {(s, p, o): (origin, rule) for s, p, o, origin, rule in seed_rows}
    delta = [(s, p, o, origin) for s, p, o, origin, _ in seed_rows]
    total = 0
    while delta:
        total += len(delta)
        near.read({t for s, _, o, _ in delta for t in (s, o)}, hops)
        if near.too_big:
            return None
        best: dict = {}
        for s, p, o, origin, _ in driver_matching.derive(program, delta, near.full):
            if origin > best.get((s, p, o), origin - 1):
                best[(s, p, o)] = origin
        near.read({s for s, _, _ in best}, 0)
        if near.too_big:
            return None
        delta = []
        for key, reached in best.items():
            row = near.known.get(key)
            if row is not None and reached >= row[0] and key not in deleted:
                deleted[key] = row
                delta.append((*key, row[0]))
    rows = [(*key, origin, rule) for key, (origin, rule) in deleted.items()]
    return arrow_bridge.rows_frame(spark, rows, FACT_SCHEMA), total
