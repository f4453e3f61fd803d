"""Semi-naive rule rounds over the (max, min) semiring of origins (IMaRS).

A fact's origin is the max over its derivations of the min over the premises' origins.
Each round derives from the facts that are new or renewed in the last round (Δ), keeps the
best origin per fact, and keeps only facts that beat what the materialization holds. The
materialization itself is not written here: the caller publishes the accumulated changes
in one commit.
"""
from __future__ import annotations

from typing import Callable

import polars as pl
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.reason import budget, driver_rounds, ill_typed, spark_joins
from reasonlake.engine.reason.fixpoint_result import FixpointResult
from reasonlake.engine.reason.neighbourhood import FilesHere, SparkFacts
from reasonlake.engine.reason.program_tables import CONSTANT, FROM_S, ProgramTables
from reasonlake.engine.store.schemas import CHANGE_SCHEMA, EXPLICIT, KEY, VIOLATION_SCHEMA
from reasonlake.spark import observed


def best_per_fact(candidates: DataFrame) -> DataFrame:
    """One row per fact: the latest origin; an explicit item wins a tie with a derivation."""
    ranked = candidates.groupBy(*KEY).agg(
        F.max(F.struct("origin", (F.col("rule") == EXPLICIT).alias("explicit"), "rule")).alias("b")
    )
    return ranked.select(*KEY, F.col("b.origin").alias("origin"), F.col("b.rule").alias("rule"))


def _beats(new_origin, new_rule, old_origin, old_rule):
    return (
        old_origin.isNull()
        | (new_origin > old_origin)
        | ((new_origin == old_origin) & (new_rule == EXPLICIT) & (old_rule != EXPLICIT))
    )


def _beaten(candidates: DataFrame, known: DataFrame, small: bool = False) -> DataFrame:
    """Candidates that no known fact (with the same key) equals or beats.

    With few candidates, the known facts are first cut down to the candidates' keys by a
    broadcast semi-join, so the materialization is scanned, not shuffled."""
    if small:
        known = F.broadcast(known.join(F.broadcast(candidates.select(*KEY)), KEY, "left_semi"))
    old = known.select(*KEY, F.col("origin").alias("k_origin"), F.col("rule").alias("k_rule"))
    c = candidates.alias("c")
    k = old.alias("k")
    same_key = [F.col(f"c.{x}") == F.col(f"k.{x}") for x in KEY]
    not_beaten = ~_beats(F.col("c.origin"), F.col("c.rule"), F.col("k.k_origin"), F.col("k.k_rule"))
    condition = same_key[0] & same_key[1] & same_key[2] & not_beaten
    return c.join(k, condition, "left_anti")


def _apply_linear(delta: DataFrame, rules: DataFrame) -> DataFrame:
    """The one-premise rules, those on a property and a value (in_o) and those on a
    property alone (in_o null), in one join: each fact of Δ meets them twice, keyed by its
    object and by null. One broadcast of the rules, where a join per kind would broadcast
    twice (a Spark job each, every round)."""
    keyed = delta.select("*", F.explode(F.array(F.col("o"), F.lit(None).cast("bigint"))).alias("in_key"))
    d = keyed.alias("d")
    r = F.broadcast(rules).alias("r")
    joined = d.join(r, (F.col("d.p") == F.col("r.in_p")) & F.col("d.in_key").eqNullSafe(F.col("r.in_o")))
    head_s = F.when(F.col("r.head_s_from_o"), F.col("d.o")).otherwise(F.col("d.s"))
    head_o = (
        F.when(F.col("r.out_o_from") == FROM_S, F.col("d.s"))
        .when(F.col("r.out_o_from") == CONSTANT, F.col("r.out_o"))
        .otherwise(F.col("d.o"))
    )
    return joined.select(
        head_s.alias("s"), F.col("r.out_p").alias("p"), head_o.alias("o"),
        F.col("d.origin").alias("origin"), F.col("r.rule").alias("rule"),
    ).where(F.col("s") >= 0)  # literals (negative ids) never stand in subject position


def _transitive_rule(transitive: pl.DataFrame) -> Column:
    """The rule of a fact's property when it is transitive (p, trule), else null: the
    properties as literals, where a join with their table would broadcast it (a Spark job)
    in every round."""
    rule = F.lit(None).cast("string")
    for (name,), props in transitive.group_by("trule", maintain_order=True):
        rule = F.when(F.col("p").isin(props.get_column("p").to_list()), F.lit(name)).otherwise(rule)
    return rule


def _apply_transitive(delta: DataFrame, full: DataFrame, transitive: pl.DataFrame, small: bool) -> DataFrame:
    rule = _transitive_rule(transitive)
    d = delta.select(*KEY, "origin", rule.alias("trule")).where(F.col("trule").isNotNull())
    if small:
        # A small Δ is the build side: the materialization is scanned once, never shuffled.
        d = F.broadcast(d)
    f = full.select(*KEY, "origin", rule.alias("trule")).where(F.col("trule").isNotNull())
    left = d.alias("a").join(f.alias("b"), (F.col("a.p") == F.col("b.p")) & (F.col("a.o") == F.col("b.s")))
    right = f.alias("a").join(d.alias("b"), (F.col("a.p") == F.col("b.p")) & (F.col("a.o") == F.col("b.s")))
    out = None
    for side in (left, right):
        part = side.select(
            F.col("a.s").alias("s"), F.col("a.p").alias("p"), F.col("b.o").alias("o"),
            F.least(F.col("a.origin"), F.col("b.origin")).alias("origin"),
            F.col("a.trule").alias("rule"),
        )
        out = part if out is None else out.unionByName(part)
    # x owl:sameAs x (eq-ref) holds for every term: it is not materialized.
    return out.where(~((F.col("rule") == "eq-trans") & (F.col("s") == F.col("o"))))


def derive(spark, delta: DataFrame, full: DataFrame, tables: ProgramTables,
           present: spark_joins.Present | None = None, small: bool = False,
           full_small: bool = False) -> DataFrame:
    """Every consequence of one rule application with at least one premise in Δ."""
    parts = [_apply_linear(delta, tables.linear)]
    if tables.driver_transitive is not None and not tables.driver_transitive.is_empty():
        parts.append(_apply_transitive(delta, full, tables.driver_transitive, small))
    if tables.joins:
        d = F.broadcast(delta) if small else delta
        parts += spark_joins.derivations(spark, tables.joins, d, full, present, tables.same_as_id, small,
                                        full_small)
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out


# Below this many rows a Δ or a candidate set is broadcast into the joins: a
# broadcast Δ joins the table without a shuffle (decision 0003).
BROADCAST_ROWS = 300_000


def _in_the_driver(spark, base_frame, seed_frame, tables: ProgramTables, known_rows: int, seed_rows,
                   fetching: bool, here):
    """``run_fixpoint``'s rounds run in the driver where the budget lets them (over the whole
    window, or over the facts they reach: ``neighbourhood``); None: they run on Spark."""
    if budget.enabled(known_rows):
        read = None if here is None else here.all(budget.LOCAL_ROWS)
        return driver_rounds.run_step(spark, None if read is not None else base_frame(),
                                      None if seed_rows is not None else seed_frame(), tables,
                                      known_rows, known=read, seed_rows=seed_rows)
    if fetching and known_rows and budget.neighbourhood_rows() > 0:
        # the window stays where it is; the rounds run in the driver over the facts they reach
        source = SparkFacts(spark, base_frame(), known_rows) if here is None else FilesHere(here)
        return driver_rounds.run_neighbourhood(spark, source, None if seed_rows is not None else seed_frame(),
                                               tables, budget.neighbourhood_rows(), seed_rows)
    return None


def run_fixpoint(spark, base: DataFrame | Callable[[], DataFrame], seed: DataFrame | Callable[[], DataFrame],
                 tables: ProgramTables, *, known_rows: int | None = None,
                 summary: dict[str, Column] | Callable[[], dict[str, Column]] | None = None,
                 unique_seed_rows: int | None = None, seed_rows=None, fetching: bool = True,
                 here=None) -> FixpointResult:
    """base: the materialization before this step (s, p, o, origin, rule), already cached,
    or a function making it (called only when the step reads it through Spark); ``here``:
    the same facts as this process reads them (``facts_here.FactsHere``), which a step in
    the driver reads instead of collecting ``base``; ``known_rows``: its rows, when the
    caller counted them. seed: candidate facts (s, p, o,
    origin, rule), e.g. the admitted items, or a function making them (called only when a
    step needs them as a Spark frame); ``unique_seed_rows``: its rows, when it is
    checkpointed with one row per fact already (the admitted items alone), so that the first
    round takes it as its best candidates; ``seed_rows``: the seed's rows already in the
    driver (a frame), for a step run there; ``fetching``: a base too large for the driver may
    have the facts its rounds look up fetched into it (``neighbourhood``). ``summary``: aggregates over the changes, computed
    as they are checkpointed (``FixpointResult.summary``), or a function making them (a
    step in the driver makes no Spark expression: its session may never start)."""
    base_frame = base if callable(base) else (lambda: base)
    if known_rows is None:
        known_rows = base_frame().count()
    seed_frame = seed if callable(seed) else (lambda: seed)
    step = _in_the_driver(spark, base_frame, seed_frame, tables, known_rows, seed_rows, fetching, here)
    if step is not None:
        return FixpointResult(None, rounds=step.rounds, local=step)
    base = base_frame()
    known = base.select(*KEY, "origin", "rule")
    seed = seed_frame()
    deltas: list[DataFrame] = []
    candidates = seed
    known_best = None if unique_seed_rows is None else (seed, unique_seed_rows)
    while True:
        # Two checkpoints a round, each counted by the job that makes it: the best
        # candidates (how many: is broadcasting them safe?), and Δ (so round k plans as fast
        # as round 1), with its summary (which predicates and classes it holds, to skip
        # rules it cannot trigger).
        best, rows = known_best or _best(candidates)
        known_best = None
        if rows == 0:
            break
        delta, held = observed.checkpointed(_beaten(best, known, small=rows <= BROADCAST_ROWS),
                                            **spark_joins.summary_aggregates(tables.type_id))
        size, present = spark_joins.summary_of(held, tables.type_id)
        if size == 0:
            break
        deltas.append(delta)
        known = known.unionByName(delta)
        known_rows += size
        full = known.select(*KEY, "origin")
        candidates = derive(spark, delta, full, tables, present, small=size <= BROADCAST_ROWS,
                            full_small=known_rows <= BROADCAST_ROWS)
    if not deltas:
        return FixpointResult(spark.createDataFrame([], CHANGE_SCHEMA), rounds=0)
    return _changes(base, deltas, (summary() if callable(summary) else summary) or {}, tables)


def _best(candidates: DataFrame) -> tuple[DataFrame, int]:
    """``best_per_fact`` of the candidates, checkpointed, and its rows."""
    best, counted = observed.checkpointed(best_per_fact(candidates), rows=F.count(F.lit(1)))
    return best, counted["rows"]


def run_resident(spark, known, seed: DataFrame, tables: ProgramTables,
                 seed_rows=None) -> FixpointResult | None:
    """run_fixpoint in the driver from the materialization's facts already there
    (``resident``, by pane, which the caller found within ``budget.enabled``), and the
    seed's rows when they are there too (a frame); None when the step outgrows the driver."""
    step = driver_rounds.run_step(spark, None, seed, tables, known.height, known=known, seed_rows=seed_rows)
    return None if step is None else FixpointResult(None, rounds=step.rounds, local=step)


# The names under which the changes' summary for the violations search is observed.
_CHANGED = "changed: "


def _changes(base: DataFrame, deltas: list[DataFrame], summary: dict[str, Column],
             tables: ProgramTables) -> FixpointResult:
    """The net effect: the best new origin per changed fact, with the origin it had before;
    ``summary`` over it, and what the violations search asks of it, computed as it is
    checkpointed."""
    union = deltas[0]
    for d in deltas[1:]:
        union = union.unionByName(d)
    before = base.select(*KEY, F.col("origin").alias("prev_origin"))
    asked = dict(summary)
    if tables.negative:
        asked |= {_CHANGED + k: c for k, c in spark_joins.summary_aggregates(tables.type_id).items()}
    if not asked:
        return FixpointResult(best_per_fact(union).join(before, KEY, "left").localCheckpoint(), rounds=len(deltas))
    changes, values = observed.checkpointed(best_per_fact(union).join(before, KEY, "left"), **asked)
    changed = {k.removeprefix(_CHANGED): v for k, v in values.items() if k.startswith(_CHANGED)}
    return FixpointResult(changes, rounds=len(deltas), summary={k: values[k] for k in summary},
                          changed=spark_joins.summary_of(changed, tables.type_id) if changed else None)


def find_violations(spark, base: DataFrame, result: FixpointResult, tables: ProgramTables,
                    terms: Callable[[], DataFrame] | None = None, base_rows: int | None = None) -> DataFrame | None:
    """Violations with at least one premise among the step's changes (new or renewed facts),
    the others from the materialization after the step; with ``terms`` (the dictionary, id
    and term, read when a literal needs it) and a program that checks literals, dt-not-type over the changed facts too.
    None: the program has no negative rule and checks no literal. A step run in the driver
    is searched there. ``base_rows``: the rows of ``base``, when the caller counted them."""
    literals = terms if tables.checks_literals else None
    if not tables.negative and literals is None:
        return None
    if result.local is not None:
        return driver_rounds.step_violations(spark, result.local, tables, literals)
    delta = result.changes.select(*KEY, "origin")
    found = None
    if tables.negative:
        full = base.select(*KEY, "origin").unionByName(delta)
        changed, present = result.changed or spark_joins.summarize(delta, tables.type_id)
        full_small = (base.count() if base_rows is None else base_rows) + changed <= BROADCAST_ROWS
        found = spark_joins.violations(spark, tables.negative, delta, full, present,
                                      changed <= BROADCAST_ROWS, full_small)
    if literals is not None:
        ill = ill_typed.spark_violations(spark, literals, delta)
        if ill is not None:
            found = ill if found is None else found.unionByName(ill)
    return found if found is not None else spark.createDataFrame([], "key STRING, " + VIOLATION_SCHEMA)
