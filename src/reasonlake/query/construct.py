"""CONSTRUCT's template instantiated with each solution (SPARQL 1.1, 16.2): a blank node of
the template is a new one per solution; a triple with an unbound variable, a literal
subject or a predicate that is not an IRI is left out. The result is an RDF graph: each
triple once."""
from __future__ import annotations

import polars as pl
from rdflib import BNode, Variable

from reasonlake.query.solutions import ROW
from reasonlake.query.terms import constant


def triples(frame: pl.DataFrame, template) -> list[str]:
    """The constructed graph as sorted N-Triples lines."""
    numbered = frame.with_row_index(ROW)
    made = []
    for s, p, o in template:
        made.append(numbered.select(_slot(s).alias("s"), _slot(p).alias("p"), _slot(o).alias("o")))
    if not made:
        return []
    every = pl.concat(made).drop_nulls()
    valid = every.filter(~pl.col("s").str.starts_with('"') & pl.col("p").str.starts_with("<"))
    lines = valid.select(pl.concat_str(["s", "p", "o"], separator=" ") + " .").unique()
    return sorted(lines.to_series().to_list())


def _slot(term) -> pl.Expr:
    if isinstance(term, Variable):
        return pl.col(str(term))
    if isinstance(term, BNode):
        return pl.format("_:c{}x{}", pl.col(ROW), pl.lit(_label(term)))
    return pl.lit(constant(term))


def _label(node: BNode) -> str:
    return "".join(c for c in str(node) if c.isalnum())
