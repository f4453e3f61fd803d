"""Multi-premise rules (joins and violations), evaluated semi-naively on Spark.

Rule instantiations with the same structure (the same premises up to their TBox
constants) form one *group*: the constants of every instantiation are rows of a small
broadcast table, so a thousand ``cls-int1`` intersections cost one plan per premise
position, not a thousand. For premise position i, the round's Δ is matched against
position i (joined with the constants), then the other premises are joined from the whole
materialization one by one, always along a shared variable. A derivation's origin is the
min over its premises (IMaRS); the caller keeps the max over derivations.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reasonlake.compile.join_groups import JoinGroup, Term

POSITIONS = ("s", "p", "o")

@dataclass(frozen=True)
class Present:
    """What a round's Δ holds, to skip premise positions it cannot match."""

    predicates: frozenset[int]
    classes: frozenset[int]
    type_id: int


def summarize(delta: DataFrame, type_id: int) -> tuple[int, Present]:
    """Δ's size and what it holds, in one job."""
    rows = delta.groupBy(
        "p", F.when(F.col("p") == type_id, F.col("o")).alias("c")
    ).count().collect()
    present = Present(
        predicates=frozenset(r.p for r in rows),
        classes=frozenset(r.c for r in rows if r.c is not None),
        type_id=type_id,
    )
    return sum(r["count"] for r in rows), present


def summary_aggregates(type_id: int) -> dict[str, Column]:
    """``summarize``'s answer as aggregates over Δ, to observe on the job that checkpoints
    it (``observed``; read back by ``summary_of``)."""
    return {"rows": F.count(F.lit(1)), "predicates": F.collect_set("p"),
            "classes": F.collect_set(F.when(F.col("p") == type_id, F.col("o")))}


def summary_of(values: dict, type_id: int) -> tuple[int, Present]:
    """Δ's size and what it holds, from the values of ``summary_aggregates``."""
    return values["rows"], Present(predicates=frozenset(values["predicates"]),
                                   classes=frozenset(values["classes"]), type_id=type_id)


def _may_match(atom, row: tuple, present: Present | None) -> bool:
    if present is None:
        return True
    kind_p, p = atom[1]
    if kind_p != "k":
        return True
    p_id = row[1 + p]
    if p_id not in present.predicates:
        return False
    kind_o, o = atom[2]
    if p_id == present.type_id and kind_o == "k":
        return row[1 + o] in present.classes
    return True


def _col(j: int, pos: str) -> str:
    return f"t{j}_{pos}"


def _match(source: DataFrame, j: int) -> DataFrame:
    return source.select(*(F.col(x).alias(_col(j, x)) for x in (*POSITIONS, "origin")))


def _conditions(atom, j: int, bound: set[str]) -> tuple[list[Column], dict[str, str]]:
    """Join conditions of premise j against what is bound, and the variables it binds."""
    conditions, binds = [], {}
    for pos, (kind, value) in zip(POSITIONS, atom):
        here = F.col(_col(j, pos))
        if kind == "k":
            conditions.append(here == F.col(f"k{value}"))
        elif value in bound:
            conditions.append(here == F.col(f"v_{value}"))
        elif value in binds:  # the same variable twice in one premise (x P x)
            conditions.append(here == F.col(_col(j, binds[value])))
        else:
            binds[value] = pos
    return conditions, binds


def _bind(frame: DataFrame, j: int, binds: dict[str, str]) -> DataFrame:
    return frame.select("*", *(F.col(_col(j, pos)).alias(f"v_{v}") for v, pos in binds.items()))


def _next_premise(group: JoinGroup, remaining: list[int], bound: set[str]) -> int:
    def score(j: int) -> tuple[int, int]:
        atom = group.body[j]
        shared = sum(1 for kind, v in atom if kind == "v" and v in bound)
        fixed = sum(1 for kind, _ in atom if kind == "k")
        return (shared, fixed)

    return max(remaining, key=score)


def _least(columns: list[Column]) -> Column:
    return columns[0] if len(columns) == 1 else F.least(*columns)


def _bodies(spark, group: JoinGroup, delta: DataFrame, full: DataFrame, present: Present | None,
            small: bool, full_small: bool):
    """Every match of the group's body with at least one premise in Δ, one frame per position.

    A small materialization is broadcast (once per query: the exchange is reused); else,
    with a small Δ, the partial matches are the broadcast side of every join, so the
    materialization is scanned, never shuffled (as for prp-trp)."""
    schema = "rule STRING, " + ", ".join(f"k{i} BIGINT" for i in range(group.slots))
    for i, atom in enumerate(group.body):
        rows = [row for row in group.rows if _may_match(atom, row, present)]
        if not rows:
            continue
        params = F.broadcast(spark.createDataFrame(rows, schema.rstrip(", ")))
        bound: set[str] = set()
        conditions, binds = _conditions(atom, i, bound)
        first = _match(delta, i)
        frame = first.join(params, _and(conditions)) if conditions else first.crossJoin(params)
        frame = _bind(frame, i, binds)
        bound |= set(binds)
        remaining = [j for j in range(len(group.body)) if j != i]
        while remaining:
            j = _next_premise(group, remaining, bound)
            remaining.remove(j)
            conditions, binds = _conditions(group.body[j], j, bound)
            other = _match(full, j)
            if full_small:  # one broadcast of the materialization, reused by every join
                other = F.broadcast(other)
            elif small:
                frame = F.broadcast(frame)
            frame = frame.join(other, _and(conditions)) if conditions else frame.crossJoin(other)
            frame = _bind(frame, j, binds)
            bound |= set(binds)
        for a, b in group.distinct:
            frame = frame.where(_term(a) != _term(b))
        yield frame


def _and(conditions: list[Column]) -> Column:
    out = conditions[0]
    for c in conditions[1:]:
        out = out & c
    return out


def _term(term: Term) -> Column:
    kind, value = term
    return F.col(f"v_{value}") if kind == "v" else F.col(f"k{value}")


def derivations(spark, groups: list[JoinGroup], delta: DataFrame, full: DataFrame,
                present: Present | None, same_as_id: int, small: bool,
                full_small: bool = False) -> list[DataFrame]:
    """Candidate facts (s, p, o, origin, rule) of the positive groups."""
    out = []
    for group in groups:
        n = len(group.body)
        for frame in _bodies(spark, group, delta, full, present, small, full_small):
            s, p, o = (_term(t) for t in group.head)
            origin = _least([F.col(_col(j, "origin")) for j in range(n)])
            out.append(
                frame.select(s.alias("s"), p.alias("p"), o.alias("o"), origin.alias("origin"), "rule")
                # no literal subject or predicate; x owl:sameAs x (eq-ref) is not materialized
                .where((F.col("s") >= 0) & (F.col("p") >= 0)
                       & ~((F.col("p") == same_as_id) & (F.col("s") == F.col("o"))))
            )
    return out


def violation_key(keep_origins: bool = False) -> Column:
    """A violation row's key: a hash of its rule and its triples (with keep_origins, its
    timed items), the same whichever backend or rule found it."""
    triples = F.col("triples") if keep_origins else F.transform("triples", lambda t: F.struct(t.s, t.p, t.o))
    return F.sha2(F.to_json(F.struct("rule", triples)), 256)


def violations(spark, groups: list[JoinGroup], delta: DataFrame, full: DataFrame,
               present: Present | None, small: bool, full_small: bool = False,
               keep_origins: bool = False) -> DataFrame | None:
    """Violation rows (rule, bindings, triples with origins, origin) of the negative groups,
    one per rule and set of triples (with keep_origins: per set of timed items, as the
    repair needs: the same triple at two times is two different items)."""
    parts = []
    for group in groups:
        n = len(group.body)
        triples = F.array_sort(F.array(*(
            F.struct(*(F.col(_col(j, x)).alias(x) for x in (*POSITIONS, "origin"))) for j in range(n)
        )))
        names = group.variables
        bindings = (
            F.map_from_arrays(F.array(*(F.lit(v) for v in names)), F.array(*(F.col(f"v_{v}") for v in names)))
            if names else F.create_map().cast("map<string,bigint>")
        )
        origin = _least([F.col(_col(j, "origin")) for j in range(n)])
        for frame in _bodies(spark, group, delta, full, present, small, full_small):
            parts.append(frame.select("rule", bindings.alias("bindings"), triples.alias("triples"),
                                      origin.alias("origin")))
    if not parts:
        return None
    union = parts[0]
    for part in parts[1:]:
        union = union.unionByName(part)
    # One row per rule and set of triples; the latest origin wins (renewed premises).
    keyed = union.withColumn("key", violation_key(keep_origins))
    best = keyed.groupBy("key").agg(F.max_by(F.struct("rule", "bindings", "triples", "origin"), "origin").alias("b"))
    return best.select("key", "b.*")
