"""XSD constructor functions (SPARQL 1.1, 17.5: ``xsd:integer(?v)`` and friends): a term cast
to xsd:string, xsd:integer, xsd:decimal, xsd:float, xsd:double, xsd:boolean or xsd:dateTime
by XPath's casting rules, null (an error) where the table of 17.5 has no cast or the value
is outside the target's lexical space. Results are written in the target's canonical form."""
from __future__ import annotations

import polars as pl

from reasonlake.query import terms as T

_DECIMAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"
_INTEGER = r"^[+-]?[0-9]+$"
_FLOAT = r"^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$"
_DATE_TIME = r"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$"

TARGETS = (T.XSD_STRING, T.XSD_INTEGER, T.XSD_DECIMAL, T.XSD_FLOAT, T.XSD_DOUBLE, T.XSD_BOOLEAN, T.XSD_DATETIME)


def _canonical_number(rank: pl.Expr, value: pl.Expr, exact: pl.Expr) -> pl.Expr:
    """A number's canonical string (XPath 3.1, 19.1.2.2): an integer as it is; a decimal
    without trailing zeros; a float or double in [1e-6, 1e6) as a decimal, else with an
    exponent (``1.0E7``), and NaN, INF, -INF."""
    plain = T.decimal_lexical(value).str.replace(r"\.?0+$", "").str.replace(r"^-?$", "0")
    plain = pl.when(T.decimal_lexical(value).str.contains(r"\.")).then(plain).otherwise(T.decimal_lexical(value))
    scientific = value.map_elements(_scientific, return_dtype=pl.String, skip_nulls=True)
    small = (value.abs() >= 1e-6) & (value.abs() < 1e6) | (value == 0)
    return (pl.when(rank == 0).then(exact.cast(pl.String))
            .when(rank == 1).then(plain)
            .when(value.is_nan()).then(pl.lit("NaN"))
            .when(value.is_infinite()).then(pl.when(value > 0).then(pl.lit("INF")).otherwise(pl.lit("-INF")))
            .when(small).then(plain)
            .otherwise(scientific))


def _scientific(value: float) -> str:
    mantissa, exponent = f"{value:.15E}".split("E")
    mantissa = mantissa.rstrip("0")
    return f"{mantissa}0E{int(exponent)}" if mantissa.endswith(".") else f"{mantissa}E{int(exponent)}"


def cast(target: str, term: pl.Expr, hidden) -> pl.Expr:
    """``term`` cast to the XSD datatype ``target`` (one of ``TARGETS``); ``hidden``
    (``Compiler._hidden``) computes each part once."""
    datatype = hidden(T.datatype(term))
    # the lexical form, whitespace collapsed as XSD's facets do before casting from a string
    lexical = hidden(pl.when(T.is_literal(term)).then(T.lexical(term)))
    from_string = hidden(pl.when(datatype == T.XSD_STRING).then(lexical.str.strip_chars(" \t\n\r")))
    rank = hidden(T.numeric_rank(term))
    value = hidden(pl.when(rank.is_not_null()).then(lexical.cast(pl.Float64, strict=False)))
    truth = hidden(T.boolean(term))
    if target == T.XSD_STRING:
        return (pl.when(T.is_iri(term)).then(T.quoted(T.iri_value(term)))
                .when(datatype == T.XSD_BOOLEAN).then(T.quoted(pl.when(truth).then(pl.lit("true")).otherwise(pl.lit("false"))))
                .when(rank.is_not_null()).then(T.quoted(_canonical_number(rank, value, hidden(T.integer(term)))))
                .when(T.is_literal(term) & (datatype != T.RDF_LANGSTRING)).then(T.quoted(lexical)))
    if target == T.XSD_BOOLEAN:
        return T.boolean_term(
            pl.when(datatype == T.XSD_BOOLEAN).then(truth)
            .when(from_string.is_in(["true", "1"])).then(True)
            .when(from_string.is_in(["false", "0"])).then(False)
            .when(value.is_not_null()).then((value != 0) & ~value.is_nan()))
    if target == T.XSD_INTEGER:
        exact = hidden(T.integer(term))
        whole = (pl.when(rank == 0).then(exact)
                 .when(value.is_not_null() & value.is_finite()).then(value.cast(pl.Int64, strict=False))
                 .when(datatype == T.XSD_BOOLEAN).then(truth.cast(pl.Int64))
                 .when(from_string.str.contains(_INTEGER))
                 .then(from_string.str.strip_prefix("+").cast(pl.Int64, strict=False)))
        return pl.when(whole.is_not_null()).then(T.integer_term(whole))
    if target == T.XSD_DECIMAL:
        number = (pl.when(value.is_not_null() & value.is_finite()).then(value)
                  .when(datatype == T.XSD_BOOLEAN).then(truth.cast(pl.Float64))
                  .when(from_string.str.contains(_DECIMAL)).then(from_string.cast(pl.Float64, strict=False)))
        number = hidden(number)
        exact = hidden(pl.when(rank == 0).then(T.integer(term)))
        written = pl.when(exact.is_not_null()).then(exact.cast(pl.String) + ".0").otherwise(T.decimal_lexical(number))
        return pl.when(number.is_not_null()).then(T.typed_literal(written, T.XSD_DECIMAL))
    if target in (T.XSD_FLOAT, T.XSD_DOUBLE):
        number = (pl.when(value.is_not_null()).then(value)
                  .when(datatype == T.XSD_BOOLEAN).then(truth.cast(pl.Float64))
                  .when(from_string.str.contains(_FLOAT))
                  .then(from_string.str.replace("^\\+?INF$", "inf").str.replace("^-INF$", "-inf")
                        .cast(pl.Float64, strict=False)))
        number = hidden(number)
        if target == T.XSD_FLOAT:  # single precision: the value a float holds, written as short as it reads back
            number = number.cast(pl.Float32)
        return pl.when(number.is_not_null()).then(T.typed_literal(T.float_lexical(number), target))
    if target == T.XSD_DATETIME:
        text = pl.when(datatype == T.XSD_DATETIME).then(lexical).otherwise(from_string)
        return pl.when(text.str.contains(_DATE_TIME)).then(T.typed_literal(text, T.XSD_DATETIME))
    raise ValueError(target)
