"""The repair step of a slide (decision 0007) and its tables.

Before anything new is materialized, the conflict sets that involve the items entering the
window are found among the window's explicit items (the inconsistency-normal form's
patterns, matched semi-naively with the new items as Δ); ``repair.preferred`` decides who
loses; losers are tombstoned in ``removed_<view>`` (partitioned by the pane where they would
have expired, so they stay removed exactly that long and then leave as a partition drop) and
every decision is logged in ``repairs_<view>`` with the conflict set and the newer items
that won. Their consequences leave the materialization by delete and re-derive (``dred``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.compile.join_groups import JoinGroup, group_rules
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.reason import budget, dred, driver_matching, spark_joins
from reasonlake.engine.reason.program_tables import term_ids
from reasonlake.engine.reason.spark_rounds import BROADCAST_ROWS
from reasonlake.engine.steps.admit import stream_events
from reasonlake.engine.store import arrow_bridge
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.materialization import expiration_pane
from reasonlake.engine.store.repair_tables import tombstones, write_tombstones
from reasonlake.engine.store.schemas import KEY
from reasonlake.plan.windows import Window
from reasonlake.repair.normal_form import NormalForm
from reasonlake.repair.preferred import Conflict, Decision, Item, decide
from reasonlake.vocab import TYPE


@dataclass
class RepairTables:
    groups: list[JoinGroup]
    type_id: int
    predicates: list[int]  # every predicate a pattern mentions: the items worth reading
    join_s: list[int]  # predicates whose subject a pattern joins on
    join_o: list[int]  # predicates whose object a pattern joins on
    # atoms that share no term with the rest of their pattern (p, s, o: an id, or None for a
    # variable), tied to it only through the ontology (``?x a C`` beside ``:i :p ?y`` when C
    # is ``hasValue :i`` of a property whose range is disjoint from p's domain): no hop from
    # an item reaches their items, so the old ones that match them are read whole
    loose: list[tuple[int, int | None, int | None]] = field(default_factory=list)
    local: object = None  # driver_matching.Matcher of the groups, made on first use


def encode(spark, form: NormalForm) -> RepairTables:
    terms = {TYPE} | {t for r in form.patterns for atom in (*r.body, *r.distinct) for t in atom
                       if not t.startswith("?")}
    ids = term_ids(spark, terms)
    predicates = sorted({ids[atom[1]] for r in form.patterns for atom in r.body})
    join_s, join_o = set(), set()
    for r in form.patterns:
        # a term two atoms share (a variable, or an individual written in the pattern)
        used = [t for s, p, o in r.body for t in {s, *([o] if p != TYPE else [])}]
        for s, p, o in r.body:
            if used.count(s) > 1:
                join_s.add(ids[p])
            if p != TYPE and used.count(o) > 1:
                join_o.add(ids[p])
    return RepairTables(group_rules(form.patterns, ids), ids[TYPE], predicates,
                        sorted(join_s), sorted(join_o), sorted(_loose_atoms(form, ids), key=str))


def _loose_atoms(form: NormalForm, ids: dict) -> set[tuple[int, int | None, int | None]]:
    """The atoms of multi-atom patterns that share no term (a variable or an individual)
    with the pattern's other atoms, as (p, s, o) ids, None for a variable."""
    def joinable(atom) -> set[str]:
        s, p, o = atom
        return {s, *([o] if p != TYPE else [])}

    loose = set()
    for r in form.patterns:
        for n, atom in enumerate(r.body):
            others = {t for m, other in enumerate(r.body) if m != n for t in joinable(other)}
            if len(r.body) > 1 and not joinable(atom) & others:
                s, p, o = atom
                loose.add((ids[p], None if s.startswith("?") else ids[s], None if o.startswith("?") else ids[o]))
    return loose


def _loose_items(old_items: DataFrame | None, tables: RepairTables) -> DataFrame | None:
    """The old items that match a loose atom (``RepairTables.loose``), s, p, o, ts."""
    if old_items is None or not tables.loose:
        return None
    matches = None
    for p, s, o in tables.loose:
        test = (F.col("p") == p) & (F.col("s") == s if s is not None else F.lit(True)) \
            & (F.col("o") == o if o is not None else F.lit(True))
        matches = test if matches is None else matches | test
    return old_items.where(matches).select(*KEY, "ts")


def window_items(home: Home, stream: str, window: Window, close: int, upto_seq: int,
                 removed: DataFrame, after: int | None = None) -> DataFrame:
    """The window's explicit items (s, p, o, ts, ingest_seq as ids), tombstoned ones left out;
    with ``after``, only those with a later time (file statistics skip the rest)."""
    lo = window.opens(close) if after is None else max(after, window.opens(close))
    events = stream_events(home, stream, upto_seq, lo, close).select(
        F.col("s_id").alias("s"), F.col("p_id").alias("p"), F.col("o_id").alias("o"), "ts", "ingest_seq"
    )
    return events.join(removed, [*KEY, "ts"], "left_anti")


def conflicts(spark, tables: RepairTables, old_items: DataFrame | None, new_items: DataFrame,
              background: DataFrame | None) -> list[Conflict]:
    """Conflict sets with at least one new item.

    old_items / new_items: s, p, o, ts. Old items are represented per triple at their latest
    time (an older duplicate of a losing item is older still and loses with it). Only the
    old items a match can reach from a new one are read: patterns are connected through
    individuals (every rule body is), so an old item of a match is at most (atoms - 1)
    shared subjects or objects away from a new item; one pass over the window per hop, with
    the frontier broadcast, instead of shuffling the whole window. When the new items and
    what they reach are small, the matching itself runs in the driver (``driver_matching``)."""
    relevant = F.col("p").isin(tables.predicates)
    new = new_items.where(relevant).select(*KEY, F.col("ts").alias("origin")).distinct()
    if old_items is not None:
        old_items = old_items.where(relevant).select(*KEY, "ts")
    rows = None
    if budget.enabled(0):
        rows = arrow_bridge.collect(new, [*KEY, "origin"], limit=budget.search_rows())
    loose = _loose_items(old_items, tables)
    if rows is not None:
        found = _conflicts_in_driver(spark, tables, old_items, rows, background, loose)
        if found is not None:
            return found
    return _conflicts_on_spark(spark, tables, old_items, new.localCheckpoint(), background, loose)


def _hops(tables: RepairTables, has_old: bool) -> int:
    return max(len(g.body) for g in tables.groups) - 1 if has_old else 0


def _conflicts_in_driver(spark, tables: RepairTables, old_items: DataFrame | None, new: list[tuple],
                         background: DataFrame | None, loose: DataFrame | None) -> list[Conflict] | None:
    """None: what the new items reach is too big for the driver."""
    if not new:
        return []
    join_s, join_o = set(tables.join_s), set(tables.join_o)

    def terms(facts):
        return {t for s, p, o, *_ in facts for t in ((s,) if p in join_s else ()) + ((o,) if p in join_o else ())}

    frontier = terms(new)
    reached: dict = {}
    for _ in range(_hops(tables, old_items is not None)):
        if not frontier:
            break
        seen = arrow_bridge.rows_frame(spark, [(t,) for t in sorted(frontier)], "t BIGINT")
        hit = _join_terms(old_items, tables, keep=True).join(F.broadcast(seen), "t", "left_semi")
        found = arrow_bridge.collect(hit, [*KEY, "ts"], limit=budget.search_rows())
        if found is None:
            return None
        _reach(reached, found)
        grown = terms([(*k, ts) for k, ts in reached.items()]) - frontier
        if not grown:
            break
        frontier |= grown
    if loose is not None:
        found = arrow_bridge.collect(loose, [*KEY, "ts"], limit=budget.search_rows())
        if found is None:
            return None
        _reach(reached, found)
    facts = [(*k, ts) for k, ts in reached.items()] + list(new)
    if background is not None:
        bg = background.where(F.col("p").isin(tables.predicates))
        facts += arrow_bridge.collect(bg, [*KEY, "origin"])
    found = driver_matching.violations(_local_groups(tables), new, driver_matching.Index(facts), keep_origins=True)
    return _as_conflicts((rule, triples) for rule, _, triples, _ in found)


def _reach(reached: dict, found) -> None:
    """Old items (s, p, o, ts) into ``reached``: each triple at its latest time."""
    for s, p, o, ts in found:
        reached[(s, p, o)] = max(ts, reached.get((s, p, o), ts))


def _local_groups(tables: RepairTables) -> driver_matching.Matcher:
    if tables.local is None:
        tables.local = driver_matching.Matcher(tables.groups)
    return tables.local


def _as_conflicts(found) -> list[Conflict]:
    out = []
    for rule, triples in found:
        items = frozenset(Item(*t) for t in triples)
        if len({(i.s, i.p, i.o) for i in items}) == len(items):  # one time per triple
            out.append(Conflict(rule, items))
    return out


def _conflicts_on_spark(spark, tables: RepairTables, old_items: DataFrame | None, new: DataFrame,
                        background: DataFrame | None, loose: DataFrame | None) -> list[Conflict]:
    size, present = spark_joins.summarize(new, tables.type_id)
    if size == 0:
        return []
    hops = _hops(tables, old_items is not None)
    frontier = _join_terms(new, tables).distinct().localCheckpoint()
    reached = None
    for hop in range(hops):
        # one pass over the window: each old item under its join terms, matched to the frontier
        # (an item reached twice is one row again after the grouping below)
        hit = _join_terms(old_items, tables, keep=True).join(F.broadcast(frontier), "t", "left_semi")
        hit = hit.select(*KEY, "ts")
        reached = (hit if reached is None else reached.unionByName(hit)).localCheckpoint()
        if hop == hops - 1:
            break
        grown = _join_terms(reached, tables).join(frontier, "t", "left_anti").distinct().localCheckpoint()
        if grown.isEmpty():
            break
        frontier = frontier.unionByName(grown).localCheckpoint()
    if loose is not None:
        reached = loose if reached is None else reached.unionByName(loose)
    old = None
    if reached is not None:
        old = reached.groupBy(*KEY).agg(F.max("ts").alias("origin"))
    if background is not None:
        bg = background.select(*KEY, "origin")
        old = bg if old is None else old.unionByName(bg)
    if old is not None:
        old = old.localCheckpoint()
    full = new if old is None else old.unionByName(new)
    full_rows = size + (old.count() if old is not None else 0)
    found = spark_joins.violations(spark, tables.groups, new, full, present, size <= BROADCAST_ROWS,
                                  full_rows <= BROADCAST_ROWS, keep_origins=True)
    if found is None:
        return []
    return _as_conflicts((row.rule, [(t.s, t.p, t.o, t.origin) for t in row.triples])
                         for row in found.select("rule", "triples").collect())


def _join_terms(facts: DataFrame, tables: RepairTables, keep: bool = False) -> DataFrame:
    """Each fact's terms in the positions patterns join on (a variable that two atoms share),
    as column ``t``; with ``keep`` the fact's columns stay. A value in a position no pattern
    joins on (``:low`` in ``x :reading :low``) never pulls in the whole window."""
    by_s = F.col("p").isin(tables.join_s) if tables.join_s else F.lit(False)
    by_o = F.col("p").isin(tables.join_o) if tables.join_o else F.lit(False)
    terms = F.array(F.when(by_s, F.col("s")), F.when(by_o, F.col("o")))
    exploded = facts.select("*", F.explode(terms).alias("t")).where(F.col("t").isNotNull())
    return exploded if keep else exploded.select("t")


def losers_frame(spark, decision: Decision) -> DataFrame:
    rows = [(i.s, i.p, i.o, i.ts) for i in sorted(decision.losers)]
    return spark.createDataFrame(rows, "s BIGINT, p BIGINT, o BIGINT, ts BIGINT")


def tombstone_rows(items: DataFrame, losers: DataFrame, window: Window, close: int) -> DataFrame:
    """Every item of a losing triple up to the losing time: an older duplicate of a losing
    item is in the same conflict, older still, and loses too."""
    lost = losers.select(*KEY, F.col("ts").alias("lost_ts"))
    hit = items.join(F.broadcast(lost), KEY).where(F.col("ts") <= F.col("lost_ts"))
    return hit.select(
        *KEY, "ts", expiration_pane("ts", window).alias("exp_pane"),
        F.lit(close).cast("long").alias("close"),
    ).distinct()


def decide_close(spark, tables: RepairTables, old_items: DataFrame | None, new_items: DataFrame,
                 background) -> Decision:
    return decide(conflicts(spark, tables, old_items, new_items, background))


@dataclass
class Repaired:
    decision: object  # repair.preferred.Decision
    seed: object = None  # the new pane's surviving items (s, p, o, origin, rule)
    base: object = None  # the materialization without the over-deleted facts
    deleted: object = None  # over-deleted rows (s, p, o, origin, rule); None: nothing old lost
    restore: object = None  # candidates that re-derive over-deleted facts


def run(home: Home, compiled, close: int, last, upto_seq: int, seq: int, base) -> Repaired:
    """A slide's repair step (decision 0007): conflicts of the new items against the repaired window, the losers
    tombstoned, their consequences deleted and set up for re-derivation."""
    decl, spark = compiled.decl, home.spark
    before = tombstones(home, decl.name, before=close)
    items = window_items(home, decl.stream, decl.window, close, upto_seq, before)
    if last is None:
        is_new = F.lit(True)
        new_items = items
    else:  # the new pane, and late arrivals still inside the window
        is_new = (F.col("ts") > last.close) | (F.col("ingest_seq") > last.events_seq)
        new_items = window_items(home, decl.stream, decl.window, close, upto_seq, before, after=last.close)
        if last.events_seq < upto_seq:
            new_items = new_items.unionByName(
                items.where((F.col("ts") <= last.close) & (F.col("ingest_seq") > last.events_seq)))
    with step("repair: conflicts"):
        decision = decide_close(spark, compiled.repair, items.where(~is_new), new_items,
                                    compiled.tables.background)
    if not decision.removals:
        return Repaired(decision)
    with step("repair: tombstones"):
        items = items.localCheckpoint()  # read several times below
        losers = losers_frame(spark, decision)
        tomb = tombstone_rows(items, losers, decl.window, close).localCheckpoint()
        write_tombstones(home, decl.name, tomb, seq)
    faults.reached("tombstones")
    survivors = items.join(tomb.select("s", "p", "o", "ts"), ["s", "p", "o", "ts"], "left_anti")
    seed = survivors.where(is_new).groupBy("s", "p", "o").agg(F.max("ts").alias("origin")).select(
        "s", "p", "o", "origin", F.lit("explicit").alias("rule"))
    # Old items that lost: the facts they gave their origin to leave, then come back from
    # whatever support remains (delete and re-derive).
    with step("repair: lost facts"):
        lost_items = items.join(tomb.select("s", "p", "o", "ts"), ["s", "p", "o", "ts"], "left_semi")
        old_lost = lost_items.where(~is_new).groupBy("s", "p", "o").agg(F.max("ts").alias("lost_ts"))
        hit = base.join(F.broadcast(old_lost), ["s", "p", "o"]).where(F.col("origin") <= F.col("lost_ts"))
        seeds = hit.select("s", "p", "o", "origin", "rule").localCheckpoint()
        if seeds.isEmpty():
            return Repaired(decision, seed=seed, base=base)
    with step("repair: over-delete"):
        deleted, n_deleted = dred.overdelete(spark, base, seeds, compiled.tables)
    with step("repair: remaining"):
        gone = deleted.select("s", "p", "o")
        if n_deleted <= BROADCAST_ROWS:  # the table is anti-joined in place, never shuffled
            gone = F.broadcast(gone)
        remaining = base.join(gone, ["s", "p", "o"], "left_anti").localCheckpoint()
    with step("repair: re-derive seed"):
        restore = dred.rederive_seed(spark, remaining, deleted, survivors.where(~is_new), compiled.tables)
    return Repaired(decision, seed=seed, base=remaining, deleted=deleted, restore=restore)
