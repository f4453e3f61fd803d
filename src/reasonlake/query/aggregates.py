"""GROUP BY's aggregates (SPARQL 1.1, 18.5.1) as Polars aggregations, their results written
back as terms.

COUNT counts the bound values that are not errors. SUM and AVG add numbers with the type
promotion of ``+`` (AVG of integers is an xsd:decimal); a value that is not a number makes
them an error (unbound), and an empty group gives ``"0"^^xsd:integer`` for both, as the
spec's Sum and Avg define. MIN and MAX take the ORDER BY order (``ordering``), SAMPLE any
value, GROUP_CONCAT the string forms (STR) joined by the separator, in no set order. Where
a value is unbound or an error, MIN, MAX, SAMPLE and GROUP_CONCAT leave it out.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from rdflib import Variable

from reasonlake.errors import SparqlError
from reasonlake.query import terms as T
from reasonlake.query.ordering import sort_keys

SUPPORTED = ("Count", "Sum", "Avg", "Min", "Max", "Sample", "GroupConcat")


@dataclass
class Aggregate:
    """One aggregate: the columns it needs before grouping, its aggregations, and the term
    made of them after."""

    inputs: list[pl.Expr]
    aggregations: list[pl.Expr]
    result: pl.Expr
    integer: pl.Expr | None = None  # the result's value where it is an integer by construction (COUNT)


def integer_column(variable: str) -> str:
    """The column beside an aggregate's result holding its integer value (``Aggregate.integer``):
    a HAVING or BIND over a COUNT compares the number, instead of parsing the term it wrote."""
    return f"$int.{variable}"


def counts_only(keys, nodes, variables) -> tuple[list[str], list[tuple[str, str | None, bool]]] | None:
    """A GROUP BY of variables whose aggregates are each COUNT(?v), COUNT(*), COUNT(DISTINCT
    ?v) or SAMPLE(?v) of a variable the solutions bind (rdflib makes a grouped variable in
    SELECT a SAMPLE): (the grouping variables, (kind, variable or None for *, distinct) per
    aggregate), which a dialect may compute with its own grouping (``counted_groups``);
    None for any other."""
    variables = set(variables)
    grouped = [str(k) for k in keys or []]
    if not all(isinstance(k, Variable) and str(k) in variables for k in keys or []):
        return None
    made = []
    for node in nodes:
        kind, distinct = node.name[len("Aggregate_"):], bool(node.get("distinct"))
        star = kind == "Count" and node.vars == "*"
        if star and not distinct:
            made.append(("count", None, False))
        elif kind in ("Count", "Sample") and isinstance(node.vars, Variable) and str(node.vars) in variables:
            # a SAMPLE is any one value, DISTINCT or not (rdflib marks a grouped variable's so)
            made.append((kind.lower(), str(node.vars), distinct and kind == "Count"))
        else:
            return None
    return grouped, made


def aggregate(node, index: int, compile_term, variables) -> Aggregate:
    kind = node.name[len("Aggregate_"):]
    if kind not in SUPPORTED:
        raise SparqlError(f"the aggregate {kind.upper()}() is not supported yet")
    distinct = bool(node.get("distinct"))
    name = f"$a{index}"
    if kind == "Count" and node.vars == "*":
        every = pl.struct([pl.col(v) for v in variables]) if variables else pl.lit(True)
        count = every.n_unique() if distinct and variables else pl.len()
        return Aggregate([], [count.alias(f"{name}.n")], T.integer_term(pl.col(f"{name}.n")),
                         pl.col(f"{name}.n").cast(pl.Int64))
    term = compile_term(node.vars)
    value = pl.col(name)

    def values(column: str) -> pl.Expr:
        """The group's values of ``column`` (of the bound argument values, once each under DISTINCT)."""
        if not distinct:
            # every column read here is null where the value is, and the aggregations below
            # (count, max, sum) pass over nulls: no filter (one per group cost a COUNT over
            # 1M groups 0.3 s of its 0.4 s)
            return pl.col(column)
        fields = [name] if column == name else [name, column]
        return pl.struct(fields).filter(value.is_not_null()).unique().struct.field(column)

    if kind == "Count":
        return Aggregate([term.alias(name)], [values(name).count().alias(f"{name}.n")],
                         T.integer_term(pl.col(f"{name}.n")), pl.col(f"{name}.n").cast(pl.Int64))
    if kind in ("Sum", "Avg"):
        inputs = [term.alias(name), T.numeric_rank(term).alias(f"{name}.r"), T.number(term).alias(f"{name}.f"),
                  T.integer(term).alias(f"{name}.i")]
        aggregations = [
            (value.is_not_null() & pl.col(f"{name}.r").is_null()).any().alias(f"{name}.bad"),
            values(f"{name}.r").max().alias(f"{name}.r"),
            values(f"{name}.f").sum().alias(f"{name}.f"),
            values(f"{name}.i").sum().alias(f"{name}.i"),
            values(name).count().alias(f"{name}.n")]
        rank, total, count = pl.col(f"{name}.r"), pl.col(f"{name}.f"), pl.col(f"{name}.n")
        zero = pl.lit(T.literal_term("0", datatype=T.XSD_INTEGER))
        if kind == "Sum":
            made = T.numeric_term(rank, total, pl.col(f"{name}.i"))
        else:
            made = T.numeric_term(pl.max_horizontal(rank, pl.lit(1, pl.Int8)), total / count, pl.lit(None, pl.Int64))
        result = pl.when(pl.col(f"{name}.bad")).then(None).when(count == 0).then(zero).otherwise(made)
        return Aggregate(inputs, aggregations, result)
    if kind in ("Min", "Max"):
        # sorted (the unbound first: ``sort_keys``), then the unbound dropped: sorted after a
        # filter, Polars 2.1 read past a group's rows (a crash, or another group's value)
        ordered = value.sort_by(sort_keys(value)).drop_nulls()
        picked = ordered.first() if kind == "Min" else ordered.last()
        return Aggregate([term.alias(name)], [picked.alias(f"{name}.v")], pl.col(f"{name}.v"))
    if kind == "Sample":
        return Aggregate([term.alias(name)], [value.drop_nulls().first().alias(f"{name}.v")], pl.col(f"{name}.v"))
    # GroupConcat
    separator = node["separator"] if "separator" in node else None  # .get answers a missing key with its name
    separator = " " if separator is None else str(separator)
    text = pl.when(T.is_literal(term)).then(T.lexical(term)).when(T.is_iri(term)).then(T.iri_value(term))
    string = f"{name}.s"
    picked = (pl.struct([name, string]).filter(pl.col(string).is_not_null()).unique(maintain_order=True)
              .struct.field(string)) if distinct else pl.col(string).drop_nulls()
    # a simple literal whatever the values' language tags (18.5.1.7; the W3C suite's agg-groupconcat-04, -06)
    return Aggregate([term.alias(name), text.alias(string)], [picked.str.join(separator).alias(f"{name}.v")],
                     T.simple_literal(pl.col(f"{name}.v")))
