"""Property paths (SPARQL 1.1, 9 and 18.4) as frames of (start, end) pairs over the triples.

``p1/p2`` and ``p1|p2`` keep duplicates (they are joins and unions of triple patterns);
``p*``, ``p+`` and ``p?`` are sets of pairs (the ALP function's visited sets). ``p+`` is a
semi-naive fixpoint: each round joins only the pairs found in the round before to the
edges, and stops when a round finds none that is new. The zero-length pairs of ``p*`` and
``p?`` are every node of the graph, and a constant end of the pattern even when the graph
does not hold it (18.4: ZeroLengthPath).
"""
from __future__ import annotations

import polars as pl
from rdflib import URIRef
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath

from reasonlake.errors import SparqlError
from reasonlake.query.terms import constant

START, END = "start", "end"


def pairs(path, triples: pl.LazyFrame, start: str | None = None, end: str | None = None) -> pl.LazyFrame:
    """The (start, end) pairs ``path`` connects; ``start``/``end``: constant ends of the
    pattern (N-Triples), which narrow a transitive path's search and are zero-length nodes."""
    if isinstance(path, URIRef):
        return triples.filter(pl.col("predicate") == constant(path)).select(
            pl.col("subject").alias(START), pl.col("object").alias(END))
    if isinstance(path, InvPath):
        flipped = pairs(path.arg, triples, end, start)
        return flipped.select(pl.col(END).alias(START), pl.col(START).alias(END))
    if isinstance(path, SequencePath):
        out = pairs(path.args[0], triples, start, None)
        for i, step in enumerate(path.args[1:], 1):
            nxt = pairs(step, triples, None, end if i == len(path.args) - 1 else None)
            out = out.join(nxt.rename({START: "$mid"}), left_on=END, right_on="$mid").select(
                START, pl.col(f"{END}_right").alias(END))
        return out
    if isinstance(path, AlternativePath):
        return pl.concat([pairs(a, triples, start, end) for a in path.args])
    if isinstance(path, NegatedPath):
        return _negated(path, triples)
    if isinstance(path, MulPath):
        return _repeated(path, triples, start, end)
    raise SparqlError(f"the property path {path!r} is not supported yet")


def _negated(path: NegatedPath, triples: pl.LazyFrame) -> pl.LazyFrame:
    forward = [constant(a) for a in path.args if isinstance(a, URIRef)]
    backward = [constant(a.arg) for a in path.args if isinstance(a, InvPath) and isinstance(a.arg, URIRef)]
    if len(forward) + len(backward) != len(path.args):
        raise SparqlError(f"the negated property set {path.n3()} is not supported: give IRIs and ^IRIs")
    parts = []
    if forward or not backward:
        parts.append(triples.filter(~pl.col("predicate").is_in(forward)).select(
            pl.col("subject").alias(START), pl.col("object").alias(END)))
    if backward:
        parts.append(triples.filter(~pl.col("predicate").is_in(backward)).select(
            pl.col("object").alias(START), pl.col("subject").alias(END)))
    return pl.concat(parts)


def _repeated(path: MulPath, triples: pl.LazyFrame, start: str | None, end: str | None) -> pl.LazyFrame:
    edges = pairs(path.path, triples).unique()
    parts = []
    if path.mod == "?":
        parts.append(edges)
    elif path.mod in ("+", "*"):
        parts.append(_closure(edges, start, end))
    else:
        raise SparqlError(f"the path modifier {path.mod!r} is not supported")
    if path.mod in ("*", "?"):
        nodes = pl.concat([triples.select(pl.col("subject").alias(START)), triples.select(pl.col("object").alias(START))])
        given = [c for c in (start, end) if c is not None]
        if given:
            nodes = pl.concat([nodes, pl.LazyFrame({START: given}, schema={START: pl.String})])
        parts.append(nodes.unique().with_columns(pl.col(START).alias(END)))
    return pl.concat(parts).unique()


def _closure(edges: pl.LazyFrame, start: str | None, end: str | None) -> pl.LazyFrame:
    """The transitive closure of ``edges``, from ``start`` only when it is given (else to
    ``end`` only, searched backwards, when that is)."""
    if start is None and end is not None:
        flipped = edges.select(pl.col(END).alias(START), pl.col(START).alias(END))
        found = _closure(flipped, end, None)
        return found.select(pl.col(END).alias(START), pl.col(START).alias(END))
    steps = edges.collect()
    reached = steps if start is None else steps.filter(pl.col(START) == start)
    newest = reached
    while newest.height:
        further = newest.join(steps, left_on=END, right_on=START).select(START, pl.col(f"{END}_right").alias(END))
        newest = further.unique().join(reached, on=[START, END], how="anti")
        reached = pl.concat([reached, newest])
    return reached.lazy()


def is_path(predicate) -> bool:
    return isinstance(predicate, Path)
