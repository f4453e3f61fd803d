"""The order of terms for ORDER BY, MIN and MAX (SPARQL 1.1, 15.1): unbound, then blank
nodes, then IRIs, then literals. Among literals, those ``<`` compares are in its order:
numbers by value, then moments (xsd:dateTime, xsd:date) by value; the rest, which SPARQL
leaves unordered, by lexical form and then by the whole term, so the order is total and
the same on every run. IRIs compare by their text without the brackets: ``<http://ex/a1>``
before ``<http://ex/a100>``, as their strings are (the bracket would sort after a digit)."""
from __future__ import annotations

import polars as pl

from reasonlake.query import terms as T


def sort_keys(term: pl.Expr) -> list[pl.Expr]:
    kind = (pl.when(term.is_null()).then(0).when(T.is_blank(term)).then(1)
            .when(T.is_iri(term)).then(2).otherwise(3)).cast(pl.Int8)
    number, moment = T.number(term), T.moment(term)
    literal_class = pl.when(number.is_not_null()).then(0).when(moment.is_not_null()).then(1).otherwise(2).cast(pl.Int8)
    return [kind, pl.when(kind == 3).then(literal_class), number, moment,
            pl.when(kind == 3).then(T.lexical(term))
            .when(kind == 2).then(term.str.strip_prefix("<").str.strip_suffix(">")).otherwise(term), term]
