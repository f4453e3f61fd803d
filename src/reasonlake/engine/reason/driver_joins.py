"""A join rule's matches in the driver (Polars): each premise's slots and the join order from
the new facts (Δ) outward, premises looked up in the known facts by the values Δ binds, and
the derivations a join group makes of them (``driver_rules.derive``)."""
from __future__ import annotations

import polars as pl

from reasonlake.compile.join_groups import JoinGroup
from reasonlake.engine.store.schemas import KEY


def _column(term) -> str:
    kind, value = term
    return f"v_{value}" if kind == "v" else f"k{value}"


def _slot_values(group: JoinGroup, term) -> list[int] | None:
    kind, value = term
    if kind != "k":
        return None
    cache = group.__dict__.setdefault("_vector_slots", {})
    if value not in cache:
        cache[value] = sorted({row[1 + value] for row in group.rows})
    return cache[value]


def _predicates(group: JoinGroup, i: int) -> frozenset | None:
    """The predicates premise i can match (None: any)."""
    return _slot_set(group, group.body[i][1])


def _slot_set(group: JoinGroup, term) -> frozenset | None:
    cache = group.__dict__.setdefault("_vector_slot_sets", {})
    if term not in cache:
        values = _slot_values(group, term)
        cache[term] = None if values is None else frozenset(values)
    return cache[term]


# Below this many rows, Δ's objects per predicate are listed once a round, so that a
# premise none of whose (predicate, object) constants Δ holds is skipped without a plan
# (most of a large TBox's groups, at a close of a few items: each plan costs about 1 ms).
OBJECTS_LISTED_ROWS = 50_000


def objects_by_predicate(delta: pl.DataFrame) -> dict[int, frozenset] | None:
    """Δ's objects per predicate (None: Δ is too large to list them)."""
    if delta.height > OBJECTS_LISTED_ROWS:
        return None
    grouped = delta.group_by("p").agg(pl.col("o").unique())
    return {p: frozenset(o) for p, o in zip(grouped.get_column("p").to_list(), grouped.get_column("o").to_list())}


def _premise_missing(group: JoinGroup, i: int, present: frozenset, objects: dict | None) -> bool:
    """Whether Δ certainly holds no fact premise i matches: none of its predicates, or
    (with ``objects``) none of its objects under those predicates."""
    predicates = _predicates(group, i)
    if predicates is None:
        return False
    if predicates.isdisjoint(present):
        return True
    wanted = _slot_set(group, group.body[i][2])
    if wanted is None or objects is None:
        return False
    return all(objects.get(p, frozenset()).isdisjoint(wanted) for p in predicates & present)


def _as_atom(facts, group: JoinGroup, j: int, keep_triple: bool):
    """``facts`` matched to premise j: its terms as binding columns (v_<variable>, k<slot>),
    cut down to the constants the group's rows put there."""
    atom = group.body[j]
    columns: dict[str, str] = {}
    conditions = []
    for position, term in zip(KEY, atom):
        name = _column(term)
        if name in columns:  # a term twice in the premise (x P x): equal terms only
            conditions.append(pl.col(position) == pl.col(columns[name]))
        else:
            columns[name] = position
        values = _slot_values(group, term)
        if values is not None:
            conditions.append(pl.col(position).is_in(values))
    if conditions:
        facts = facts.filter(*conditions)
    selected = [pl.col(position).alias(name) for name, position in columns.items()]
    selected.append(pl.col("origin").alias(f"origin{j}"))
    if keep_triple:
        selected += [pl.col(x).alias(f"t{j}{x}") for x in KEY]
    return facts.select(selected)


def _order(group: JoinGroup, i: int) -> list[int]:
    """The other premises in join order: most variables already bound, then most constants."""
    cache = group.__dict__.setdefault("_vector_order", {})
    if i not in cache:
        cache[i] = _join_order(group, i)
    return cache[i]


def _join_order(group: JoinGroup, i: int) -> list[int]:
    bound = {v for kind, v in group.body[i] if kind == "v"}
    remaining = [j for j in range(len(group.body)) if j != i]
    order = []
    while remaining:
        def score(j):
            atom = group.body[j]
            return (sum(1 for kind, v in atom if kind == "v" and v in bound), sum(1 for kind, _ in atom if kind == "k"))
        j = max(remaining, key=score)
        remaining.remove(j)
        order.append(j)
        bound |= {v for kind, v in group.body[j] if kind == "v"}
    return order


def _rows_frame(group: JoinGroup) -> pl.DataFrame:
    frame = group.__dict__.get("_vector_rows")
    if frame is None:
        schema = {"rule": pl.String, **{f"k{k}": pl.Int64 for k in range(group.slots)}}
        frame = group.__dict__["_vector_rows"] = pl.DataFrame(group.rows, schema=schema, orient="row")
    return frame


def matches(group: JoinGroup, delta: pl.DataFrame, full: pl.LazyFrame, present: frozenset,
            keep_triples: bool = False, objects: dict | None = None, probe=None):
    """Every match of the group's body with at least one premise in Δ, as plans of binding
    columns, ``rule`` and origin<j> per premise (t<j>s/p/o too with keep_triples).
    present: the predicates Δ holds; objects: Δ's objects per predicate, or None (a
    premise Δ holds nothing of is skipped unread). probe(column, values): the facts whose
    column holds one of values, for facts not all at hand (``neighbourhood``): each other
    premise is then looked up by the terms the matches so far bind, not joined with ``full``."""
    rows = _rows_frame(group).lazy()
    for i in range(len(group.body)):
        if _premise_missing(group, i, present, objects):
            continue
        first = _as_atom(delta, group, i, keep_triples)
        if first.is_empty():
            continue
        columns = set(first.columns)
        on = [c for c in first.columns if c.startswith("k")]
        current = first.lazy().join(rows, on=on, how="inner") if on else first.lazy().join(rows, how="cross")
        columns |= set(_rows_frame(group).columns)
        for j in _order(group, i):
            if probe is None:
                other = _as_atom(full, group, j, keep_triples)
            else:
                current = current.collect().lazy()
                other = _as_atom(_looked_up(probe, group, j, current), group, j, keep_triples)
            names = other.collect_schema().names()
            on = [c for c in names if c in columns]
            current = current.join(other, on=on, how="inner") if on else current.join(other, how="cross")
            columns |= set(names)
        for a, b in group.distinct:
            current = current.filter(pl.col(_column(a)) != pl.col(_column(b)))
        yield current


class NeedsWholeWindow(Exception):
    """A premise shares no term with the matches before it: only the whole window answers."""


def _looked_up(probe, group: JoinGroup, j: int, current: pl.LazyFrame) -> pl.LazyFrame:
    """The facts premise j can match, looked up by a term the matches so far bind: its
    subject or object bound by a variable (the few Δ reaches), else by a constant of the
    group's rows, else its predicate."""
    atom = group.body[j]
    bound = set(current.collect_schema().names())
    candidates = [(position, _column(term)) for position, term in zip(KEY, atom)]
    for wanted in ("v", "k"):
        for position, name in candidates:
            if position != "p" and name.startswith(wanted) and name in bound:
                return probe(position, current.select(name).collect().to_series())
    position, name = candidates[1]
    if name in bound:
        return probe("p", current.select(name).collect().to_series())
    raise NeedsWholeWindow(group.rows[0][0] if group.rows else "a rule")


def group_derivations(group: JoinGroup, delta: pl.DataFrame, full: pl.LazyFrame, present: frozenset,
                       same_as: int, objects: dict | None, probe, combine):
    origins = [f"origin{j}" for j in range(len(group.body))]
    s, p, o = (_column(t) for t in group.head)
    for found in matches(group, delta, full, present, objects=objects, probe=probe):
        out = found.select(pl.col(s).alias("s"), pl.col(p).alias("p"), pl.col(o).alias("o"),
                           combine(origins).alias("origin"), "rule")
        yield out.filter((pl.col("s") >= 0) & (pl.col("p") >= 0)
                         & ~((pl.col("p") == same_as) & (pl.col("s") == pl.col("o"))))
