"""The value of an N-Triples term, as Polars expressions over a column of N-Triples text.

A solution's column holds each bound term in canonical N-Triples (``parse/terms.py``):
``<iri>``, ``_:b``, ``"lex"``, ``"lex"@en``, ``"lex"^^<dt>``; null is unbound (or, for a
computed value, an error). Here a term is taken apart (kind, lexical form, language,
datatype) and read as a number, a boolean or a moment where its datatype says so, for
FILTER, ORDER BY and the aggregates; and values are written back as canonical terms.

Numbers are read as 64-bit floats (xsd:decimal too: 15 significant digits kept when
written back), and integers also as 64-bit integers, so integer arithmetic stays exact.
A lexical form outside its datatype's lexical space (``"x"^^xsd:integer``) has no value:
using it as a number is a type error, as SPARQL says.
"""
from __future__ import annotations

import polars as pl

from reasonlake.parse.terms import literal_term
from reasonlake.query import value_rules as R
from reasonlake.query.value_rules import SKOLEM
from reasonlake.vocab import RDF, XSD

XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_FLOAT = XSD + "float"
XSD_DOUBLE = XSD + "double"
XSD_BOOLEAN = XSD + "boolean"
XSD_STRING = XSD + "string"
XSD_DATETIME = XSD + "dateTime"
XSD_DATE = XSD + "date"
XSD_DURATION = XSD + "duration"
XSD_DAY_TIME_DURATION = XSD + "dayTimeDuration"
RDF_LANGSTRING = RDF + "langString"

# XSD's types derived from xsd:integer: their values are integers, and arithmetic on them
# gives xsd:integer (SPARQL 1.1, 17.3: numeric type promotion)
INTEGER_TYPES = tuple(XSD + t for t in (
    "integer", "nonPositiveInteger", "negativeInteger", "long", "int", "short", "byte",
    "nonNegativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "positiveInteger"))
# the numeric types in the order of promotion: integer < decimal < float < double
NUMERIC_RANK = {**{t: 0 for t in INTEGER_TYPES}, XSD_DECIMAL: 1, XSD_FLOAT: 2, XSD_DOUBLE: 3}
RANK_TYPE = {0: XSD_INTEGER, 1: XSD_DECIMAL, 2: XSD_FLOAT, 3: XSD_DOUBLE}

TRUE = literal_term("true", datatype=XSD_BOOLEAN)
FALSE = literal_term("false", datatype=XSD_BOOLEAN)

# lexical spaces (XSD 1.1 Part 2, 3.3): a form outside them has no value
_INTEGER_LEXICAL = r"^[+-]?[0-9]+$"
_DECIMAL_LEXICAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"
_FLOAT_LEXICAL = r"^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$"
_BOOLEAN_LEXICAL = r"^(true|false|1|0)$"

# A canonical literal: "lexical" then @lang or ^^<datatype> or nothing. In the lexical form
# as written a quote is escaped and a backslash starts an escape, so the body runs to the
# first quote not escaped: a regular expression with no choice to make, and no capture of
# what follows it (one pattern with a group for each part took 1.5 s for 1M integer terms,
# this and the slices of its rest 0.4 s; a HAVING over 1M counts reads each count's parts).
_LEXICAL_WRITTEN = r'(?s)^"((?:[^"\\]|\\.)*)"'

# the escapes of canonical N-Triples (``parse/terms._quote``): read in one left-to-right pass
_CONTROL = [chr(c) for c in [*range(0x20), 0x7F] if chr(c) not in "\b\t\n\f\r"]
_ESCAPED = ["\\\\", '\\"', "\\b", "\\t", "\\n", "\\f", "\\r", *(f"\\u{ord(c):04X}" for c in _CONTROL)]
_PLAIN = ["\\", '"', "\b", "\t", "\n", "\f", "\r", *_CONTROL]


def literal_parts(term: pl.Expr) -> pl.Expr:
    """A literal's parts, a struct: "1" its lexical form as written (escaped), "2" its
    language tag, "3" its datatype IRI (null where it has none, and all null for a term
    that is not a literal)."""
    written = term.str.extract(_LEXICAL_WRITTEN, 1)
    rest = term.str.slice(written.str.len_chars() + 2)  # "", @lang or ^^<datatype>
    return pl.struct(written.alias("1"),
                     pl.when(rest.str.starts_with("@")).then(rest.str.slice(1)).alias("2"),
                     pl.when(rest.str.starts_with("^^<")).then(rest.str.slice(3, rest.str.len_chars() - 4)).alias("3"))


def unescaped(written: pl.Expr) -> pl.Expr:
    """A lexical form as canonical N-Triples writes it, unescaped."""
    return written.str.replace_many(_ESCAPED, _PLAIN)


class PolarsColumns:
    """Polars's column expressions, as the value rules read them (``value_rules.Columns``)."""

    def lit(self, value: str | bool) -> pl.Expr:
        return pl.lit(value)

    def integer(self, value: int) -> pl.Expr:
        return pl.lit(value, pl.Int64)

    def when(self, condition: pl.Expr, then: pl.Expr, otherwise: pl.Expr | None = None) -> pl.Expr:
        chosen = pl.when(condition).then(then)
        return chosen if otherwise is None else chosen.otherwise(otherwise)

    def is_not_null(self, column: pl.Expr) -> pl.Expr:
        return column.is_not_null()

    def starts_with(self, column: pl.Expr, prefix: str | pl.Expr) -> pl.Expr:
        return column.str.starts_with(prefix)

    def ends_with(self, column: pl.Expr, suffix: str | pl.Expr) -> pl.Expr:
        return column.str.ends_with(suffix)

    def contains(self, column: pl.Expr, part: str | pl.Expr) -> pl.Expr:
        return column.str.contains(part, literal=True)


POLARS = PolarsColumns()


def is_iri(term: pl.Expr) -> pl.Expr:
    return R.is_iri(POLARS, term)


def is_blank(term: pl.Expr) -> pl.Expr:
    return R.is_blank(POLARS, term)


def as_blank_nodes(frame: pl.DataFrame) -> pl.DataFrame:
    """An answer's stored blank nodes written as blank nodes again (``_:label``)."""
    shown = [c for c, t in frame.schema.items() if t == pl.String]
    return frame.with_columns(pl.when(pl.col(c).str.starts_with(SKOLEM))
                              .then("_:" + pl.col(c).str.slice(len(SKOLEM), pl.col(c).str.len_chars() - len(SKOLEM) - 1))
                              .otherwise(pl.col(c)).alias(c) for c in shown)


def is_literal(term: pl.Expr) -> pl.Expr:
    return R.is_literal(POLARS, term)


def lexical(term: pl.Expr) -> pl.Expr:
    """A literal's lexical form, unescaped (null for an IRI or a blank node)."""
    return unescaped(literal_parts(term).struct.field("1"))


def language(term: pl.Expr) -> pl.Expr:
    """A literal's language tag ("" for none; null for an IRI or a blank node)."""
    return pl.when(is_literal(term)).then(literal_parts(term).struct.field("2").fill_null(""))


def written_datatype(term: pl.Expr) -> pl.Expr:
    """The datatype IRI as written (null for a simple or language-tagged literal)."""
    return literal_parts(term).struct.field("3")


def datatype(term: pl.Expr) -> pl.Expr:
    """A literal's datatype IRI (xsd:string, rdf:langString for the implicit ones)."""
    # is_literal is null for an unbound term, and a null condition falls through to the next:
    # the literal test comes first and positive
    return (pl.when(is_literal(term) & (language(term) != "")).then(pl.lit(RDF_LANGSTRING))
            .when(is_literal(term)).then(written_datatype(term).fill_null(XSD_STRING)))


def iri_value(term: pl.Expr) -> pl.Expr:
    """An IRI's text without the brackets."""
    return pl.when(is_iri(term)).then(term.str.slice(1, term.str.len_chars() - 2))


def is_simple(term: pl.Expr) -> pl.Expr:
    """A simple literal (xsd:string: the canonical form drops ``^^xsd:string``)."""
    return is_literal(term) & term.str.ends_with('"')


def is_string_literal(term: pl.Expr) -> pl.Expr:
    """A simple or language-tagged literal: what the string functions take."""
    return is_simple(term) | (is_literal(term) & (language(term) != ""))


def numeric_rank(term: pl.Expr) -> pl.Expr:
    """0 integer, 1 decimal, 2 float, 3 double; null: not a number (or an ill-typed one)."""
    dt = written_datatype(term)
    rank = dt.replace_strict(NUMERIC_RANK, default=None, return_dtype=pl.Int8)
    lex = lexical(term)
    valid = (pl.when(rank == 0).then(lex.str.contains(_INTEGER_LEXICAL))
             .when(rank == 1).then(lex.str.contains(_DECIMAL_LEXICAL))
             .otherwise(lex.str.contains(_FLOAT_LEXICAL)))
    return pl.when(valid).then(rank)


def of_types(term: pl.Expr, datatypes) -> pl.Expr:
    """The term where it is a literal written with one of ``datatypes``, else null. A typed
    literal ends with its datatype (an IRI holds no ``>``): a cheap suffix test that spares
    the value parsers (regular expressions, casts, date formats) the rows they would find no
    value in."""
    test = pl.lit(False)
    for iri in datatypes:
        test = test | term.str.ends_with(f"^^<{iri}>")
    return pl.when(test).then(term)


def number(term: pl.Expr) -> pl.Expr:
    """A numeric literal's value as a float (null: not a number)."""
    return pl.when(numeric_rank(term).is_not_null()).then(lexical(term).cast(pl.Float64, strict=False))


def integer(term: pl.Expr) -> pl.Expr:
    """An integer literal's value as a 64-bit integer (null: not an integer, or too large)."""
    return pl.when(numeric_rank(term) == 0).then(lexical(term).str.strip_prefix("+").cast(pl.Int64, strict=False))


def boolean(term: pl.Expr) -> pl.Expr:
    """An xsd:boolean literal's value (null: not a boolean, or ill-typed)."""
    lex = lexical(term)
    return (pl.when((written_datatype(term) == XSD_BOOLEAN) & lex.str.contains(_BOOLEAN_LEXICAL))
            .then(lex.is_in(["true", "1"])))


def moment_kind(term: pl.Expr) -> pl.Expr:
    """What a moment compares with: "dateTime"/"date" with a time zone ("Z" appended) or
    without; values of two kinds are not comparable (an indeterminate order is an error)."""
    dt = written_datatype(term)
    zoned = lexical(term).str.contains(r"(Z|[+-][0-9]{2}:[0-9]{2})$")
    kind = pl.when(dt == XSD_DATETIME).then(pl.lit("dateTime")).when(dt == XSD_DATE).then(pl.lit("date"))
    return pl.when(moment(term).is_not_null()).then(kind + pl.when(zoned).then(pl.lit("Z")).otherwise(pl.lit("")))


def moment(term: pl.Expr) -> pl.Expr:
    """An xsd:dateTime or xsd:date literal as microseconds since 1970 (UTC where zoned)."""
    dt = written_datatype(term)
    lex = lexical(term).str.replace(r"Z$", "+00:00")
    zoned = lex.str.contains(r"[+-][0-9]{2}:[0-9]{2}$")
    date_time = pl.coalesce(
        pl.when(zoned).then(lex.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%:z", time_zone="UTC", strict=False)
                            .dt.replace_time_zone(None)),
        pl.when(~zoned).then(lex.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", time_zone=None, strict=False)))
    date = pl.coalesce(
        pl.when(zoned).then((lex.str.slice(0, 10) + "T00:00:00" + lex.str.slice(10))
                            .str.to_datetime("%Y-%m-%dT%H:%M:%S%:z", time_zone="UTC", strict=False)
                            .dt.replace_time_zone(None)),
        pl.when(~zoned).then(lex.str.to_datetime("%Y-%m-%d", time_zone=None, strict=False)))
    return (pl.when(dt == XSD_DATETIME).then(date_time.dt.cast_time_unit("us"))
            .when(dt == XSD_DATE).then(date.dt.cast_time_unit("us"))).dt.epoch("us")


# xsd:duration without years or months (their length in days is not fixed, so they order
# only partially) and xsd:dayTimeDuration: days, hours, minutes, seconds
_DAY_TIME = r"^(-)?P(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+(?:\.[0-9]*)?)S)?)?$"


def duration(term: pl.Expr) -> pl.Expr:
    """A day-time duration as milliseconds (Float64); null for any other term, and for a
    duration with years or months, which does not compare with one of days (an error)."""
    dt = written_datatype(term)
    lex = lexical(term)
    parts = lex.str.extract_groups(_DAY_TIME)
    wellformed = lex.str.contains(_DAY_TIME) & ~lex.str.ends_with("P") & ~lex.str.ends_with("T")
    total = sum((parts.struct.field(str(n)).cast(pl.Float64, strict=False).fill_null(0.0) * scale
                 for n, scale in ((2, 86_400_000.0), (3, 3_600_000.0), (4, 60_000.0), (5, 1000.0))),
                pl.lit(0.0))
    signed = pl.when(parts.struct.field("1") == "-").then(-total).otherwise(total)
    return pl.when(dt.is_in([XSD_DURATION, XSD_DAY_TIME_DURATION]) & wellformed).then(signed)


# -- writing values back as terms -------------------------------------------------------------

def quoted(lex: pl.Expr) -> pl.Expr:
    """A lexical form as the quoted part of a canonical literal."""
    return '"' + lex.str.replace_many(_PLAIN, _ESCAPED) + '"'


def simple_literal(lex: pl.Expr) -> pl.Expr:
    return quoted(lex)


def typed_literal(lex: pl.Expr, datatype_iri: str | pl.Expr) -> pl.Expr:
    dt = pl.lit(datatype_iri) if isinstance(datatype_iri, str) else datatype_iri
    return quoted(lex) + "^^<" + dt + ">"


def string_like(lex: pl.Expr, lang: pl.Expr) -> pl.Expr:
    """A simple literal, or a language-tagged one where ``lang`` is not ""."""
    return pl.when(lang != "").then(quoted(lex) + "@" + lang).otherwise(quoted(lex))


def iri_term(value: pl.Expr) -> pl.Expr:
    return "<" + value + ">"


def boolean_term(value: pl.Expr) -> pl.Expr:
    return pl.when(value).then(pl.lit(TRUE)).when(~value).then(pl.lit(FALSE))


def duration_term(milliseconds: pl.Expr) -> pl.Expr:
    """Milliseconds (an integer) as an xsd:dayTimeDuration: ``PT90.5S``, ``-PT3S``."""
    ms = milliseconds.cast(pl.Int64)
    whole = (ms.abs() // 1000).cast(pl.String)
    fraction = (ms.abs() % 1000).cast(pl.String).str.zfill(3).str.strip_chars_end("0")
    seconds = pl.when(fraction == "").then(whole).otherwise(whole + "." + fraction)
    sign = pl.when(ms < 0).then(pl.lit("-")).otherwise(pl.lit(""))
    return pl.when(ms.is_not_null()).then(typed_literal(sign + "PT" + seconds + "S", XSD_DAY_TIME_DURATION))


def moment_term(milliseconds: pl.Expr) -> pl.Expr:
    """Milliseconds since 1970 as an xsd:dateTime in UTC (``2026-12-01T10:00:00.250Z``)."""
    at = pl.from_epoch(milliseconds.cast(pl.Int64), time_unit="ms")
    return pl.when(milliseconds.is_not_null()).then(
        typed_literal(at.dt.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"), XSD_DATETIME))


def integer_term(value: pl.Expr) -> pl.Expr:
    return typed_literal(value.cast(pl.Int64).cast(pl.String), XSD_INTEGER)


def float_lexical(value: pl.Expr) -> pl.Expr:
    """A float as an xsd:double / xsd:float lexical form (INF, -INF, NaN as XSD spells them)."""
    return (pl.when(value.is_nan()).then(pl.lit("NaN"))
            .when(value == float("inf")).then(pl.lit("INF"))
            .when(value == float("-inf")).then(pl.lit("-INF"))
            .otherwise(value.cast(pl.String)))


def decimal_lexical(value: pl.Expr) -> pl.Expr:
    """A float as an xsd:decimal lexical form: 15 significant digits (a float's exact ones),
    never an exponent (xsd:decimal has none)."""
    rounded = value.round_sig_figs(15)
    text = rounded.cast(pl.String)
    # a very large or small value prints with an exponent ("1.5e-7", "1e+20"): its digits are
    # written out in full instead, by string operations (a Python function per value would be
    # slow here and could not travel to Spark's executors inside the expression)
    parts = text.str.extract_groups(r"^(-?)([0-9]+)(?:\.([0-9]*))?e([+-]?[0-9]+)$")
    sign, whole = parts.struct.field("1"), parts.struct.field("2")
    digits = whole + parts.struct.field("3").fill_null("")
    point = whole.str.len_chars().cast(pl.Int64) + parts.struct.field("4").str.strip_prefix("+").cast(pl.Int64)
    count = digits.str.len_chars().cast(pl.Int64)

    def zeros(n: pl.Expr) -> pl.Expr:
        return pl.lit("0").repeat_by(pl.max_horizontal(n, pl.lit(0))).list.join("")

    plain = (pl.when(point <= 0).then("0." + zeros(-point) + digits)
             .when(point >= count).then(digits + zeros(point - count))
             .otherwise(digits.str.slice(0, point) + "." + digits.str.slice(point)))
    return pl.when(text.str.contains("e")).then(sign + plain).otherwise(text)


def numeric_term(rank: pl.Expr, as_float: pl.Expr, as_integer: pl.Expr) -> pl.Expr:
    """A number of type ``rank`` (``NUMERIC_RANK``) as a literal; integers from ``as_integer``."""
    return (pl.when(rank == 0).then(typed_literal(as_integer.cast(pl.String), XSD_INTEGER))
            .when(rank == 1).then(typed_literal(decimal_lexical(as_float), XSD_DECIMAL))
            .when(rank == 2).then(typed_literal(float_lexical(as_float), XSD_FLOAT))
            .when(rank == 3).then(typed_literal(float_lexical(as_float), XSD_DOUBLE)))


def constant(term) -> str:
    """An rdflib term of the query (IRI or literal) as canonical N-Triples text."""
    # imported when called: it loads rdflib
    from rdflib import BNode, Literal, URIRef

    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, Literal):
        return literal_term(str(term), term.language, str(term.datatype) if term.datatype else None)
    if isinstance(term, BNode):
        return f"_:{term}"
    raise TypeError(f"not an RDF term: {term!r}")


def pattern_term(term) -> str | tuple[str]:
    """A triple pattern's term: a constant in N-Triples, a variable as the 1-tuple of its name,
    a blank node as a hidden variable (``$b<id>``); TypeError for what is neither (a path)."""
    # imported when called: it loads rdflib
    from rdflib import BNode, Variable

    if isinstance(term, Variable):
        return (str(term),)
    if isinstance(term, BNode):
        return (f"$b{term}",)
    return constant(term)
