"""A registered query's solutions carried from close to close by the triples a close
removed and added, where the query is monotone in them (decision 0053, issue 47).

A close changes a small part of the window, yet a registered query answered from scratch
reads the whole window as text (the IMaRS 1M window: 1.3 s of a 0.5 s slide). For a basic
graph pattern under FILTERs on the row's own variables, the solutions are a set of
mappings (the triples are a set, every variable bound in every row) and each one rests on
the triples its patterns match, so with ``gone`` the triples that left (removed and not
added back) and ``came`` those that came (added and not removed before):

- a solution stays while none of its patterns' triples is ``gone`` (each pattern's triple
  is rebuilt from the row's bindings and its constants, and anti-joined with ``gone``);
- a new solution matches some pattern ``i`` with a triple that came: the pattern is matched
  against ``came`` alone, and those bindings are joined with the other patterns over the
  new window, then the FILTERs are applied to the joined rows. None of them is among the
  kept: each rests on a triple the window did not hold;
- the solutions are the union of both, the new ones each once.

The patterns are joined on the terms' ids (the view's facts as the driver keeps them, only
the rows a reader sees), Int64 equi-joins a few times cheaper than joins on the text; only
the new solutions are decoded (``terms``: id and N-Triples text of the window's terms),
for the FILTERs and the answer, and a kept solution keeps its text. The answer is the
projection of the solutions (DISTINCT or not), as the query's own SELECT makes it.

Anything else (OPTIONAL, UNION, MINUS, aggregates, paths, sub-queries, ORDER BY, LIMIT,
EXISTS, RAND or NOW, event operators) is answered from scratch by the caller: ``shape_of``
gives None for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import polars as pl
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.query import events, parse, paths
from reasonlake.query.planner import Planner, _is_variable, _name, _variables_of, _walk
from reasonlake.query.dialects.polars_frames import PolarsFrames
from reasonlake.query.solutions import UNIT, Solutions
from reasonlake.query.terms import constant

IDS = ["s", "p", "o"]  # a fact's terms' ids
# functions whose value is not the row's alone: a solution kept would not be the one made again
_VOLATILE = {"Builtin_RAND", "Builtin_NOW", "Builtin_UUID", "Builtin_STRUUID", "Builtin_BNODE"}


@dataclass(frozen=True)
class Shape:
    """A query answered by carrying its solutions: its triple patterns, the FILTERs over
    them (innermost first), every variable they bind and the SELECT's variables."""

    triples: tuple
    filters: tuple
    variables: tuple[str, ...]
    selected: tuple[str, ...]
    distinct: bool

    @property
    def constants(self) -> list[str]:
        return sorted({constant(t) for triple in self.triples for t in triple if not _is_variable(t)})


@lru_cache(maxsize=256)
def shape_of(text: str) -> Shape | None:
    """The query's shape where its solutions can be carried from close to close; else None."""
    if events.translate(text)[1]:
        return None
    try:
        root = parse.algebra(text).algebra
    except Exception:  # the full evaluation raises the error the user sees
        return None
    if root.name != "SelectQuery" or root.get("datasetClause"):
        return None
    node, distinct = root.p, False
    if node.name in ("Distinct", "Reduced"):
        node, distinct = node.p, True
    if node.name != "Project":
        return None
    inner, filters = node.p, []
    while isinstance(inner, CompValue) and inner.name == "Filter":
        if _variables_of(inner.expr) is None or any(
                isinstance(n, CompValue) and n.name in _VOLATILE for n in _walk(inner.expr)):
            return None
        filters.insert(0, inner.expr)
        inner = inner.p
    if not isinstance(inner, CompValue) or inner.name != "BGP" or not inner.triples:
        return None
    if any(paths.is_path(p) for _, p, _ in inner.triples):
        return None
    variables = tuple(dict.fromkeys(_name(t) for triple in inner.triples for t in triple if _is_variable(t)))
    return Shape(tuple(inner.triples), tuple(filters), variables, tuple(str(v) for v in node.PV), distinct)


class PaneMatches:
    """Each pattern's matches in each pane of the window, kept from close to close: a pane a
    close did not touch is the very frame it was (``decoded_panes``), so only the new
    panes are matched again (the IMaRS 1M window: three scans of 3.1M facts a close, where
    one pane in a hundred changed)."""

    def __init__(self):
        self._panes: dict[int, tuple[pl.DataFrame, list[pl.DataFrame]]] = {}  # id(frame) -> frame, matches

    def of(self, shape: Shape, panes: list[pl.DataFrame], ids: dict[str, int | None]) -> dict[int, pl.DataFrame]:
        """Each pattern's matches among the facts of ``panes`` (ids ``s, p, o``). A pane's
        matches stand while ``ids`` changes: a constant is None there only when no pane's
        fact names it (the terms held are those of every pane's facts)."""
        kept = {}
        for frame in panes:
            # the frames held (``_panes``) keep their ids from being reused by a new frame
            found = self._panes.get(id(frame))
            if found is None:
                found = (frame, [_matches(t, frame.lazy(), ids).collect() for t in shape.triples])
            kept[id(frame)] = found
        self._panes = kept
        return {i: _concat([matches[i] for _, matches in kept.values()], _binding_schema(triple))
                for i, triple in enumerate(shape.triples)}


def solutions(shape: Shape, panes: list[pl.DataFrame], terms: pl.DataFrame, id_of: Callable[[str], int],
              matches: PaneMatches) -> pl.DataFrame:
    """Every solution of the shape's pattern over the facts of ``panes`` (ids ``s, p, o``,
    each fact once), from scratch: each variable's text and its id (``$id.``); ``terms``:
    (id, term) of every id of the facts; ``id_of``: a term's id."""
    ids = _ids_of_constants(shape, terms, id_of)
    return _finished(shape, _joined(shape, list(range(len(shape.triples))), matches.of(shape, panes, ids), None),
                     terms)


def carried(shape: Shape, kept: pl.DataFrame, panes: list[pl.DataFrame], removed: pl.DataFrame,
            added: pl.DataFrame, terms: pl.DataFrame, id_of: Callable[[str], int],
            matches: PaneMatches) -> pl.DataFrame:
    """The solutions over the facts of ``panes`` given ``kept``, those over the facts
    before a change that took out ``removed`` and put in ``added`` (ids ``s, p, o``, both
    sets; a fact in both stayed)."""
    ids = _ids_of_constants(shape, terms, id_of)
    gone = removed.select(IDS).join(added.select(IDS), on=IDS, how="anti")
    # a pane decoded again lists all its rows as added, most of them there before
    came = added.select(IDS).join(removed.select(IDS), on=IDS, how="anti")
    staying = kept.lazy()
    if gone.height:
        named = [f"$gone.{c}" for c in IDS]
        # a kept solution's constants matched when it was made: their ids are the hash's, whether
        # or not the terms held now still name them (a window that emptied holds none)
        hashed = {term: id_of(term) for term in shape.constants}
        for triple in shape.triples:
            made = [_id_of(t, hashed).alias(n) for t, n in zip(triple, named)]
            staying = staying.with_columns(made).join(gone.lazy(), left_on=named, right_on=IDS,
                                                      how="anti").drop(named)
    parts = []
    if came.height:
        new = came.lazy()
        matched = matches.of(shape, panes, ids)
        for i, triple in enumerate(shape.triples):
            others = [j for j in range(len(shape.triples)) if j != i]
            parts.append(_joined(shape, others, matched, _matches(triple, new, ids)))
    staying = staying.collect()
    if not parts:
        return staying
    # each new solution matches a triple that came, so none is among those kept
    made = pl.concat(parts, how="vertical").unique()
    return pl.concat([staying, _finished(shape, made, terms)], how="vertical")


def answer(shape: Shape, found: pl.DataFrame) -> pl.DataFrame:
    """The query's solutions from the pattern's: its SELECT's columns (an unselected
    variable's column null), each row once under DISTINCT."""
    frame = found.select(pl.col(v) if v in shape.variables else pl.lit(None, pl.String).alias(v)
                         for v in shape.selected)
    return frame.unique(maintain_order=True) if shape.distinct else frame


# -- the patterns over ids --------------------------------------------------------------------
def _joined(shape: Shape, which: list[int], matched: dict[int, pl.DataFrame], seed: pl.LazyFrame | None) -> pl.LazyFrame:
    """The bindings (ids, one column ``$id.var`` a variable) of the patterns ``which``
    (their matches in ``matched``) joined with ``seed`` (None: the empty binding), the
    patterns that share a variable with what is joined so far first."""
    out, bound = seed, set() if seed is None else set(seed.collect_schema().names())
    left = list(which)
    while left:
        sharing = [i for i in left if _columns_of(shape.triples[i]) & bound]
        nxt = sharing[0] if sharing else left[0]
        left.remove(nxt)
        columns = _columns_of(shape.triples[nxt])
        shared = sorted(columns & bound)
        if out is None:
            out = matched[nxt].lazy()
        elif shared and seed is not None:
            # a few new bindings against a pattern's every match: the matches narrowed by a
            # scan for the bindings' values first (a hash join would hash or probe them all)
            out = out.collect()
            wanted = matched[nxt].lazy().filter(pl.col(shared[0]).is_in(out.get_column(shared[0]).unique().implode()))
            out = out.lazy().join(wanted, on=shared, how="inner")
        elif shared:
            out = out.join(matched[nxt].lazy(), on=shared, how="inner")
        else:
            out = out.join(matched[nxt].lazy(), how="cross")
        bound |= columns
    return out.select(_id_columns(shape))


def _matches(triple, facts: pl.LazyFrame, ids: dict[str, int | None]) -> pl.LazyFrame:
    """The facts that match one triple pattern, as bindings (``$id.var``)."""
    tests, names = [], {}
    for column, term in zip(IDS, triple):
        if not _is_variable(term):
            found = ids[constant(term)]
            tests.append(pl.lit(False) if found is None else pl.col(column) == found)
        elif _id_name(term) in names.values():  # ?x ?p ?x: the same term in both places
            first = next(c for c, n in names.items() if n == _id_name(term))
            tests.append(pl.col(column) == pl.col(first))
        else:
            names[column] = _id_name(term)
    found = facts.filter(*tests) if tests else facts
    return found.select(pl.col(c).alias(n) for c, n in names.items())


def _finished(shape: Shape, bindings: pl.LazyFrame, terms: pl.DataFrame) -> pl.DataFrame:
    """Bindings by id decoded (each variable's text beside its id) and filtered."""
    bindings = bindings.collect()
    # the terms of these bindings only: a join would hash every term of the window
    named = pl.concat([bindings.get_column(c) for c in _id_columns(shape)]).unique()
    terms = terms.filter(pl.col("id").is_in(named.implode())).lazy()
    decoded = bindings.lazy()
    for var in shape.variables:
        decoded = decoded.join(terms.select(pl.col("id").alias(_id_name_of(var)), pl.col("term").alias(var)),
                               on=_id_name_of(var), how="left")
    if shape.filters:
        frames = PolarsFrames()
        planner = Planner(pl.LazyFrame(schema={c: pl.String for c in ("subject", "predicate", "object")}), frames)
        found = Solutions.of(frames, decoded.with_columns(pl.lit(True).alias(UNIT)), shape.variables)
        for expr in shape.filters:
            found = planner._filter(found, expr)
        decoded = found.frame
    return decoded.select(*shape.variables, *_id_columns(shape)).collect()


def _ids_of_constants(shape: Shape, terms: pl.DataFrame, id_of: Callable[[str], int]) -> dict[str, int | None]:
    """Each constant of the patterns with its id (``id_of``, the dictionary's hash), where
    ``terms`` hold it under that id; None where they do not (not in the window: a pattern
    naming it matches nothing). Looked up by id: a scan of the terms' text costs more."""
    wanted = {term: id_of(term) for term in shape.constants}
    held = terms.filter(pl.col("id").is_in(list(wanted.values())))
    held = dict(held.select("id", "term").iter_rows())
    return {term: (found if held.get(found) == term else None) for term, found in wanted.items()}


def _id_of(term, ids: dict[str, int | None]) -> pl.Expr:
    if _is_variable(term):
        return pl.col(_id_name(term))
    return pl.lit(ids[constant(term)], pl.Int64)


def _binding_schema(triple) -> dict[str, pl.DataType]:
    return {_id_name(t): pl.Int64 for t in dict.fromkeys(t for t in triple if _is_variable(t))}


def _concat(parts: list[pl.DataFrame], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.concat(parts, how="vertical", rechunk=False) if parts else pl.DataFrame(schema=schema)


def _columns_of(triple) -> set[str]:
    return {_id_name(t) for t in triple if _is_variable(t)}


def _id_columns(shape: Shape) -> list[str]:
    return [_id_name_of(v) for v in shape.variables]


def _id_name(term) -> str:
    return _id_name_of(_name(term))


def _id_name_of(variable: str) -> str:
    return f"$id.{variable}"
