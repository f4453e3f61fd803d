"""CONSTRUCT's template instantiated with each solution (SPARQL 1.1, 16.2): a blank node of
the template is a new one per solution; a triple with an unbound variable, a literal
subject or a predicate that is not an IRI is left out. The result is an RDF graph: each
triple once."""
from __future__ import annotations

import polars as pl
from rdflib import BNode, Variable

from reasonlake.query.solutions import ROW
from reasonlake.query.terms import constant


COLUMNS = ("subject", "predicate", "object")


def graph(frame: pl.DataFrame, template) -> pl.DataFrame:
    """The constructed graph: subject, predicate, object (N-Triples terms), each triple once."""
    numbered = frame.with_row_index(ROW)
    made = [numbered.select(_slot(s).alias(COLUMNS[0]), _slot(p).alias(COLUMNS[1]), _slot(o).alias(COLUMNS[2]))
            for s, p, o in template]
    if not made:
        return pl.DataFrame(schema={c: pl.String for c in COLUMNS})
    every = pl.concat(made).drop_nulls()
    return every.filter(~pl.col("subject").str.starts_with('"') & pl.col("predicate").str.starts_with("<")).unique()


def lines(constructed: pl.DataFrame) -> list[str]:
    """A constructed graph as sorted N-Triples lines."""
    return sorted(constructed.select(pl.concat_str(list(COLUMNS), separator=" ") + " .").to_series().to_list())


def _slot(term) -> pl.Expr:
    if isinstance(term, Variable):
        return pl.col(str(term))
    if isinstance(term, BNode):
        return pl.format("_:c{}x{}", pl.col(ROW), pl.lit(_label(term)))
    return pl.lit(constant(term))


def _label(node: BNode) -> str:
    return "".join(c for c in str(node) if c.isalnum())
