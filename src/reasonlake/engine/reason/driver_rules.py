"""The compiled rules as vectorized joins over Arrow in the driver (Polars), for closes
whose facts fit in the driver's memory budget (``driver_budget``).

A Spark job has a fixed price (a plan, a stage, a broadcast), and a round runs dozens of
them; evaluated row by row in Python, a round costs a microsecond per match. Here a round
is a handful of hash joins over columns: the linear rules (hierarchies, domains, ranges,
sub-properties, through the saturated TBox) are two joins with the rule tables, a
transitive property two self-joins, and each multi-premise group one join per premise
(Δ at one position, the constants table, then the other premises from every fact seen,
most bound first). The semantics are ``spark_rounds``' to the row: a derivation takes the min
of its premises' origins, a fact keeps the max (an explicit item winning a tie, then the
greatest rule id), and a candidate enters Δ only if it beats what is known.

Facts are frames with columns s, p, o, origin (64-bit ids and times) and rule.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.compile.join_groups import JoinGroup
from reasonlake.engine.reason.driver_joins import group_derivations, matches, objects_by_predicate
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.program_tables import CONSTANT, FROM_S, ProgramTables
from reasonlake.engine.store.schemas import EXPLICIT, FACT_FRAME_SCHEMA, KEY

FACT_SCHEMA = FACT_FRAME_SCHEMA


def empty(schema: dict = FACT_SCHEMA) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


@dataclass
class VectorProgram:
    """A compiled program's tables as frames (collected once per view compile)."""

    by_value: pl.DataFrame  # in_p, in_o, rule, head_s_from_o, out_p, out_o_from, out_o
    by_property: pl.DataFrame  # in_p, rule, head_s_from_o, out_p, out_o_from, out_o
    transitive: pl.DataFrame  # p, trule
    joins: list[JoinGroup]
    negative: list[JoinGroup]
    same_as_id: int


def vector_program(tables: ProgramTables) -> VectorProgram:
    if tables.vector is not None:
        return tables.vector
    linear = tables.driver_linear
    by_value = linear.filter(pl.col("in_o").is_not_null())
    by_property = linear.filter(pl.col("in_o").is_null()).drop("in_o")
    transitive = tables.driver_transitive
    program = VectorProgram(by_value, by_property, transitive, tables.joins, tables.negative, tables.same_as_id)
    tables.vector = program
    return program


# --- one rule application -----------------------------------------------------------------

def _linear(delta: pl.LazyFrame, rules: pl.DataFrame, on: list[str]) -> pl.LazyFrame:
    premises = delta.select(*KEY, "origin")  # the rule's id is the one that fires, not the premise's
    joined = premises.join(rules.lazy(), left_on=on, right_on=["in_p", "in_o"][:len(on)], how="inner")
    return joined.select(
        pl.when(pl.col("head_s_from_o")).then(pl.col("o")).otherwise(pl.col("s")).alias("s"),
        pl.col("out_p").alias("p"),
        pl.when(pl.col("out_o_from") == FROM_S).then(pl.col("s"))
        .when(pl.col("out_o_from") == CONSTANT).then(pl.col("out_o"))
        .otherwise(pl.col("o")).alias("o"),
        "origin",
        "rule",
    ).filter(pl.col("s") >= 0)  # literals (negative ids) never stand in subject position


def touching(big: pl.LazyFrame, column: str, values: pl.Series) -> pl.LazyFrame:
    """The rows of ``big`` whose ``column`` holds one of ``values``. A scan probing a hash set
    of the few values, so that joining a small Δ with the window hashes Δ's neighbours, not
    the whole window: a close then costs a scan of the window, not a hash build of it."""
    return big.filter(_among(column, values))


def _among(column: str, values: pl.Series) -> pl.Expr:
    return pl.col(column).is_in(values.unique().implode())


def _transitive(delta: pl.DataFrame, probe, props: pl.DataFrame, combine) -> pl.LazyFrame:
    """probe(column, values): the facts seen whose column holds one of values; combine: the
    head's origin from its premises' columns."""
    d = delta.select(*KEY, "origin").join(props, on="p", how="inner")

    def near(column: str, values: pl.Series) -> pl.LazyFrame:
        return probe(column, values).join(props.lazy().select("p"), on="p", how="semi").select(*KEY, "origin")

    # (a p b) in Δ then (b p c) known, and (x p a) known then (a p b) in Δ
    left = d.lazy().join(near("s", d.get_column("o")), left_on=["p", "o"], right_on=["p", "s"],
                         how="inner", suffix="_r").select(
        "s", "p", pl.col("o_r").alias("o"), combine(["origin", "origin_r"]).alias("origin"),
        pl.col("trule").alias("rule"))
    right = near("o", d.get_column("s")).join(d.lazy(), left_on=["p", "o"], right_on=["p", "s"],
                                                     how="inner", suffix="_r").select(
        "s", "p", pl.col("o_r").alias("o"), combine(["origin", "origin_r"]).alias("origin"),
        pl.col("trule").alias("rule"))
    out = pl.concat([left, right])
    # x owl:sameAs x (eq-ref) holds for every term: it is not materialized.
    return out.filter(~((pl.col("rule") == "eq-trans") & (pl.col("s") == pl.col("o"))))


def derive(program: VectorProgram, delta: pl.DataFrame, full: pl.LazyFrame, probe=None,
           probe_joins: bool = False, combine=pl.min_horizontal) -> pl.LazyFrame:
    """Candidates (s, p, o, origin, rule) of one rule application with a premise in Δ, as
    one plan; ``full`` holds every fact seen, Δ included, and ``probe(column, values)``
    finds those whose column holds one of values (None: a scan of ``full``); probe_joins:
    the rule joins look their premises up through ``probe`` too (``full`` is not every fact);
    ``combine``: a derivation's origin from its premises' origin columns (IMaRS: the least;
    ``derived_events`` combines intervals)."""
    lazy = delta.lazy()
    parts = [
        _linear(lazy, program.by_value, ["p", "o"]),
        _linear(lazy, program.by_property.with_columns(pl.lit(None, pl.Int64).alias("in_o")), ["p"]),
    ]
    present = frozenset(delta.get_column("p").unique().to_list())
    if not present.isdisjoint(program.transitive.get_column("p").to_list()):
        parts.append(_transitive(delta, probe or _scan(full), program.transitive, combine))
    objects = objects_by_predicate(delta) if program.joins else None
    for group in program.joins:
        parts.extend(group_derivations(group, delta, full, present, program.same_as_id, objects,
                                        probe if probe_joins else None, combine))
    return pl.concat([part.select(FACT_SCHEMA.keys()).cast(FACT_SCHEMA) for part in parts], how="vertical")


# --- the fixpoint --------------------------------------------------------------------------

def best_per_fact(candidates: pl.LazyFrame) -> pl.LazyFrame:
    """One row per fact: the latest origin; an explicit item wins a tie, then the greatest rule."""
    explicit = pl.col("rule") == EXPLICIT
    return candidates.group_by(KEY).agg(
        pl.col("origin").max(), pl.col("rule").sort_by(["origin", explicit, "rule"]).last())


def _not_beaten(best: pl.DataFrame, probe) -> pl.LazyFrame:
    """Candidates that no known fact with the same key equals or beats (origin, explicit);
    probe(column, values): the known facts whose column holds one of values."""
    old = probe("s", best.get_column("s")).select(
        *KEY, pl.col("origin").alias("k_origin"), pl.col("rule").alias("k_rule"))
    joined = best.lazy().join(old, on=KEY, how="left")
    explicit = pl.col("rule") == EXPLICIT
    beats = (pl.col("k_origin").is_null() | (pl.col("origin") > pl.col("k_origin"))
             | ((pl.col("origin") == pl.col("k_origin")) & explicit & (pl.col("k_rule") != EXPLICIT)))
    return joined.filter(beats).select(FACT_SCHEMA.keys())


def _without(big: pl.DataFrame, facts: pl.DataFrame) -> pl.DataFrame:
    """``big`` less the rows whose key is in ``facts`` (few): only the rows sharing a subject
    with ``facts`` go through the anti-join (the rest keep their order ahead of them)."""
    hit = _among("s", facts.get_column("s"))
    return pl.concat([big.filter(~hit), big.filter(hit).join(facts.select(KEY), on=KEY, how="anti")])


class TooLarge(Exception):
    pass


@dataclass
class Closed:
    """A fixpoint run in the driver."""

    base: pl.DataFrame  # the materialization before the step, one row per fact
    changed: pl.DataFrame  # s, p, o, origin, rule, prev_origin: every fact new or renewed, with its origin before
    full: pl.DataFrame  # the materialization before the step and every Δ (a violation search's facts)
    rounds: int
    _known: pl.DataFrame | None = None
    # facts not all at hand (``neighbourhood``): how a search finds those it needs
    # (``probe(column, values)``, every Δ included), and ``base`` and ``full`` hold only those found
    probe: object = None
    settled: object = None  # and how a search is built until all it looks up is at hand

    @property
    def known(self) -> pl.DataFrame:
        """The materialization after the step, one row per fact: made when first asked for
        (a copy of the whole window, which a close that keeps its facts by pane never asks)."""
        if self._known is None:
            changed = self.changed.select(FACT_SCHEMA.keys())
            self._known = pl.concat([_without(self.base, changed), changed]) if self.rounds else self.base
        return self._known


def _scan(frame):
    """A look-up by scanning ``frame`` (the probe of what has no index)."""
    return lambda column, values: touching(frame.lazy(), column, values)


def fixpoint(program: VectorProgram, known, seed: pl.DataFrame, max_facts: int | None = None) -> Closed:
    """The semi-naive fixpoint of ``seed`` (s, p, o, origin, rule) over ``known``, the
    materialization (one row per fact): a frame, or ``PanedFacts``, whose look-ups by
    subject and object go through its index. Raises TooLarge past ``max_facts`` facts."""
    deltas: list[pl.DataFrame] = []
    accumulated = empty()  # the best change per fact so far
    candidates = seed.lazy().select(FACT_SCHEMA.keys()).cast(FACT_SCHEMA)
    partial = getattr(known, "partial", False)  # a Neighbourhood: facts fetched as looked up
    if isinstance(known, PanedFacts):
        probe, known = known.touching, known.frame()
    elif partial:
        probe = known.touching
    else:
        probe = _scan(known.select(FACT_SCHEMA.keys()))
    base = known.frame() if partial else known.select(FACT_SCHEMA.keys())

    def seen(column: str, values: pl.Series) -> pl.LazyFrame:  # the known facts and every Δ
        return pl.concat([probe(column, values), *(touching(d.lazy(), column, values) for d in deltas)])

    # facts looked up as the plans are built (a Neighbourhood): each plan built until what
    # it looks up is all fetched, then run
    settled = known.settled if partial else (lambda build: build())
    while True:
        # one plan a round: the rules, the best per fact, what beats the known facts
        ranked = best_per_fact(candidates).collect()
        if partial:
            known.want(ranked)
        best = settled(lambda: _not_beaten(ranked, probe).collect())
        delta = _not_beaten(best, _scan(accumulated)).collect()
        if delta.is_empty():
            break
        deltas.append(delta)
        # Δ beats what was accumulated for its facts: it replaces them
        accumulated = pl.concat([accumulated.join(delta, on=KEY, how="anti"), delta])
        if max_facts is not None and known.height + accumulated.height > max_facts:
            raise TooLarge(known.height + accumulated.height)
        full = pl.concat([base.lazy(), *(d.lazy() for d in deltas)])
        candidates = settled(lambda: derive(program, delta, full, seen, probe_joins=partial))
    before = probe("s", accumulated.get_column("s")).select(
        *KEY, pl.col("origin").alias("prev_origin"))
    changed = accumulated.lazy().join(before, on=KEY, how="left").collect()
    if partial:
        base = known.frame()
    return Closed(base=base, changed=changed, full=pl.concat([base, *deltas]), rounds=len(deltas),
                  probe=seen if partial else None, settled=settled if partial else None)


def violations(groups: list[JoinGroup], delta: pl.DataFrame, full: pl.DataFrame, probe=None) -> list[tuple]:
    """Violation rows (rule, bindings, triples, origin) with a premise in Δ, one per rule and
    set of triples, the latest origin winning; probe: as ``matches``'s, when ``full`` holds
    only the facts fetched so far."""
    best: dict = {}
    present = frozenset(delta.get_column("p").unique().to_list())
    objects = objects_by_predicate(delta) if groups else None
    for group in groups:
        n = len(group.body)
        variables = group.variables
        for found in matches(group, delta, full.lazy(), present, keep_triples=True, objects=objects, probe=probe):
            columns = (["rule", *(f"v_{v}" for v in variables)]
                       + [f"t{j}{x}" for j in range(n) for x in KEY] + [f"origin{j}" for j in range(n)])
            for row in found.select(columns).collect().iter_rows():
                rule, values = row[0], row[1:1 + len(variables)]
                terms = row[1 + len(variables):1 + len(variables) + 3 * n]
                origins = row[1 + len(variables) + 3 * n:]
                premises = sorted((*terms[3 * j:3 * j + 3], origins[j]) for j in range(n))
                origin = min(origins)
                key = (rule, tuple(f[:3] for f in premises))
                current = best.get(key)
                if current is None or origin > current[3]:
                    best[key] = (rule, dict(zip(variables, values)), premises, origin)
    return list(best.values())
