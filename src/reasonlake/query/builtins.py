"""SPARQL 1.1's functions on strings, numbers, dates, hashes and new terms (17.4.2-17.4.6)
beyond the tests and comparisons of ``expressions``, by their W3C names.

Each is a Polars expression over the solutions frame, so the driver and Spark (which runs
the same expression on each Arrow batch) answer alike. The few with no Polars operator
(the hashes, ENCODE_FOR_URI, new blank nodes, RAND, UUID) call Python per value: they are
rare in a query and never in the hot path of a view's triples. A type error is null (an
unbound result), as everywhere in the compiler.
"""
from __future__ import annotations

import hashlib
import random
import re
import uuid
from contextvars import ContextVar
from datetime import datetime, timezone
from urllib.parse import quote, urljoin

import polars as pl
from rdflib import RDF, Literal, URIRef

from reasonlake.errors import SparqlError
from reasonlake.query import terms as T
from reasonlake.query.values import Value

# the query being compiled: its moment (NOW() is one value for the whole query, 17.4.5.1)
# and its base IRI (IRI() of a relative string), set by ``answer.run``
QUERY: ContextVar[tuple[datetime, str | None] | None] = ContextVar("query", default=None)

# a dateTime's parts (XSD 1.1 Part 2, 3.3.7), time zone optional
_DATE_TIME = r"^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2}(?:\.[0-9]+)?)(Z|[+-][0-9]{2}:[0-9]{2})?$"
_LANGUAGE_TAG = r"^[A-Za-z]+(-[A-Za-z0-9]+)*$"


def arguments(arg) -> list:
    """A function's argument list as rdflib gives it: ``rdf:nil`` for none, one term, or a list."""
    if arg is None or (isinstance(arg, URIRef) and arg == RDF.nil):
        return []
    return list(arg) if isinstance(arg, list) else [arg]


# a token per solution, made before the first BNODE(str) of a pattern (``planner._Extend``), so
# that every BNODE of the same string in one solution is the same node
ROW_TOKEN = "$bnode.row"


def row_token() -> pl.Expr:
    return _per_row(lambda: uuid.uuid4().hex).alias(ROW_TOKEN)


def makes_blank_nodes(expr) -> bool:
    """Whether an expression calls BNODE with an argument."""
    if isinstance(expr, dict):
        if getattr(expr, "name", None) == "Builtin_BNODE" and given(expr, "arg") is not None:
            return True
        return any(makes_blank_nodes(v) for v in expr.values())
    if isinstance(expr, list):
        return any(makes_blank_nodes(v) for v in expr)
    return False


def given(node, key: str):
    """An optional part of a node (rdflib's ``CompValue.get`` answers a missing key with its name)."""
    return node[key] if key in node else None


def _now() -> datetime:
    found = QUERY.get()
    return found[0] if found else datetime.now(timezone.utc)


def _base() -> str | None:
    found = QUERY.get()
    return found[1] if found else None


def _python(expr: pl.Expr, function, dtype=pl.String) -> pl.Expr:
    """``function`` of each non-null value (no Polars operator does it)."""
    return expr.map_elements(function, return_dtype=dtype, skip_nulls=True)


def _per_row(function, dtype=pl.String) -> pl.Expr:
    """A value made anew for each row (a blank node, a random number): from the row's index,
    which only makes the call per row."""
    return pl.int_range(pl.len(), dtype=pl.Int64).map_elements(lambda _: function(), return_dtype=dtype)


class Builtins:
    """Handlers mixed into ``expressions.Compiler`` (which provides ``term``, ``text``,
    ``_hidden`` and ``compile``)."""
    # -- strings (17.4.3) -----------------------------------------------------------------
    def _Builtin_STRLANG(self, e):
        text, tag = self.text(e.arg1), self.text(e.arg2)
        simple = text.ok & (text.language == "")  # a simple literal (xsd:string is written as one)
        valid = tag.ok & (tag.language == "") & tag.lexical.str.contains(_LANGUAGE_TAG)
        # language tags are kept in lower case, as ingest keeps them (parse/terms)
        return Value(pl.when(simple & valid).then(T.quoted(text.lexical) + "@" + tag.lexical.str.to_lowercase()))

    def _Builtin_STRDT(self, e):
        text, datatype = self.text(e.arg1), self.term(e.arg2)
        simple = text.ok & (text.language == "")
        iri = T.iri_value(datatype)
        made = pl.when(iri == T.XSD_STRING).then(T.quoted(text.lexical)).otherwise(T.typed_literal(text.lexical, iri))
        return Value(pl.when(simple & iri.is_not_null()).then(made))

    def _Builtin_SUBSTR(self, e):
        text = self.text(e.arg)
        # XPath fn:substring: the characters at positions p with round(start) <= p <
        # round(start) + round(length), counting from 1
        start = self._hidden(self._rounded(e.start))
        first = pl.max_horizontal(start, pl.lit(1.0))
        if given(e, "length") is not None:
            end = start + self._hidden(self._rounded(e.length))
        else:
            end = pl.lit(float("inf"))
        length = pl.max_horizontal(end - first, pl.lit(0.0))
        length = pl.when(length.is_infinite()).then(None).otherwise(length)
        sliced = text.lexical.str.slice((first - 1).cast(pl.Int64), length.cast(pl.Int64))
        ok = text.ok & start.is_not_null() & end.is_not_null() & ~start.is_nan() & ~end.is_nan()
        return Value(pl.when(ok).then(T.string_like(sliced, text.language)))

    def _rounded(self, expr) -> pl.Expr:
        """A numeric argument rounded as fn:round does (half up), as a float; null: not a number."""
        term = self.term(expr)
        return (T.number(term) + 0.5).floor()

    def _Builtin_STRBEFORE(self, e):
        return self._split_at(e, before=True)

    def _Builtin_STRAFTER(self, e):
        return self._split_at(e, before=False)

    def _split_at(self, e, before: bool):
        a, b = self.text(e.arg1), self.text(e.arg2)
        compatible = a.ok & b.ok & ((b.language == "") | (a.language == b.language))
        parts = self._hidden(a.lexical.str.split(b.lexical))
        found = parts.list.len() > 1
        if before:
            piece = pl.when(b.lexical == "").then(pl.lit("")).otherwise(parts.list.first())
        else:
            piece = pl.when(b.lexical == "").then(a.lexical).otherwise(parts.list.slice(1).list.join(b.lexical))
        # a match keeps the first argument's language tag; no match is the empty simple literal
        made = (pl.when((b.lexical == "") | found).then(T.string_like(piece, a.language))
                .otherwise(T.quoted(pl.lit(""))))
        return Value(pl.when(compatible).then(made))

    def _Builtin_REPLACE(self, e):
        text = self.text(e.arg)
        flags = given(e, "flags")
        constant = all(isinstance(x, Literal) for x in (e.pattern, e.replacement)) and \
            (flags is None or isinstance(flags, Literal))
        if not constant:
            raise SparqlError("REPLACE with a pattern, replacement or flags that are not constant strings "
                              "is not supported yet")
        flags = str(flags) if flags is not None else ""
        if set(flags) - set("ismx"):
            raise SparqlError(f"REPLACE flag(s) {flags!r} are not supported (i, s, m, x are)")
        pattern = (f"(?{flags})" if flags else "") + str(e.pattern)
        _check_pattern(str(e.pattern))
        # XPath's $1 is the Rust engine's ${1}: "$1a" would name a group "1a" there

        replacement = re.sub(r"\$([0-9])", r"${\1}", str(e.replacement))
        changed = text.lexical.str.replace_all(pattern, replacement)
        return Value(pl.when(text.ok).then(T.string_like(changed, text.language)))

    def _Builtin_ENCODE_FOR_URI(self, e):
        text = self.text(e.arg)
        encoded = _python(text.lexical, lambda s: quote(s, safe="~", encoding="utf-8"))
        return Value(pl.when(text.ok).then(T.quoted(encoded)))

    # -- hashes (17.4.6): of a simple literal or xsd:string, as lower-case hex ---------------
    def _hash(self, e, name: str):
        text = self.text(e.arg)
        digest = _python(text.lexical, lambda s: hashlib.new(name, s.encode("utf-8")).hexdigest())
        return Value(pl.when(text.ok & (text.language == "")).then(T.quoted(digest)))

    def _Builtin_MD5(self, e):
        return self._hash(e, "md5")

    def _Builtin_SHA1(self, e):
        return self._hash(e, "sha1")

    def _Builtin_SHA256(self, e):
        return self._hash(e, "sha256")

    def _Builtin_SHA384(self, e):
        return self._hash(e, "sha384")

    def _Builtin_SHA512(self, e):
        return self._hash(e, "sha512")

    # -- numbers (17.4.4): the argument's type kept ----------------------------------------
    def _numeric(self, e, on_float, on_integer):
        term = self.term(e.arg)
        rank = self._hidden(T.numeric_rank(term))
        value = self._hidden(pl.when(rank.is_not_null()).then(T.lexical(term).cast(pl.Float64, strict=False)))
        exact = self._hidden(T.integer(term))
        return Value(T.numeric_term(rank, on_float(value), on_integer(exact)))

    def _Builtin_ABS(self, e):
        return self._numeric(e, lambda x: x.abs(), lambda i: i.abs())

    def _Builtin_CEIL(self, e):
        return self._numeric(e, lambda x: x.ceil(), lambda i: i)

    def _Builtin_FLOOR(self, e):
        return self._numeric(e, lambda x: x.floor(), lambda i: i)

    def _Builtin_ROUND(self, e):
        # fn:round: half toward positive infinity (-2.5 rounds to -2)
        return self._numeric(e, lambda x: pl.when(x.is_finite()).then((x + 0.5).floor()).otherwise(x), lambda i: i)

    def _Builtin_RAND(self, e):
        return Value(T.typed_literal(T.float_lexical(_per_row(random.random, pl.Float64)), T.XSD_DOUBLE))

    # -- dates (17.4.5): of an xsd:dateTime ------------------------------------------------
    def _date_part(self, e, group: int):
        term = self.term(e.arg)
        lexical = pl.when(T.written_datatype(term) == T.XSD_DATETIME).then(T.lexical(term))
        return self._hidden(lexical.str.extract(_DATE_TIME, group))

    def _integer_part(self, e, group: int):
        part = self._date_part(e, group)
        return Value(pl.when(part.is_not_null()).then(T.integer_term(part.cast(pl.Int64, strict=False))))

    def _Builtin_YEAR(self, e):
        return self._integer_part(e, 1)

    def _Builtin_MONTH(self, e):
        return self._integer_part(e, 2)

    def _Builtin_DAY(self, e):
        return self._integer_part(e, 3)

    def _Builtin_HOURS(self, e):
        return self._integer_part(e, 4)

    def _Builtin_MINUTES(self, e):
        return self._integer_part(e, 5)

    def _Builtin_SECONDS(self, e):
        part = self._date_part(e, 6)
        return Value(pl.when(part.is_not_null()).then(T.typed_literal(part, T.XSD_DECIMAL)))

    def _Builtin_TIMEZONE(self, e):
        zone = self._date_part(e, 7)  # null without a time zone: an error
        sign = zone.str.slice(0, 1)
        hours = zone.str.slice(1, 2).cast(pl.Int64, strict=False)
        minutes = zone.str.slice(4, 2).cast(pl.Int64, strict=False)
        body = (pl.when(hours > 0).then(hours.cast(pl.String) + "H").otherwise(pl.lit(""))
                + pl.when(minutes > 0).then(minutes.cast(pl.String) + "M").otherwise(pl.lit("")))
        duration = (pl.when(zone == "Z").then(pl.lit("PT0S"))
                    .when(body == "").then(pl.lit("PT0S"))
                    .otherwise(pl.when(sign == "-").then(pl.lit("-")).otherwise(pl.lit("")) + "PT" + body))
        return Value(pl.when(zone.is_not_null()).then(T.typed_literal(duration, T.XSD_DAY_TIME_DURATION)))

    def _Builtin_TZ(self, e):
        term = self.term(e.arg)
        is_moment = T.written_datatype(term) == T.XSD_DATETIME
        zone = self._date_part(e, 7)
        return Value(pl.when(is_moment & T.lexical(term).str.contains(_DATE_TIME))
                     .then(T.quoted(zone.fill_null(""))))

    def _Builtin_NOW(self, e):
        return Value(pl.lit(T.constant(Literal(_now()))))

    # -- new terms (17.4.2) ---------------------------------------------------------------
    def _Builtin_IRI(self, e):
        term = self.term(e.arg)
        text = self.text(e.arg)
        base = _base()
        # a relative reference resolved against the query's BASE (RFC 3986, 5.2)
        resolved = _python(text.lexical, lambda s: urljoin(base, s)) if base else text.lexical
        from_string = pl.when(text.ok & (text.language == "")).then(T.iri_term(resolved))
        return Value(pl.when(T.is_iri(term)).then(term).otherwise(from_string))

    _Builtin_URI = _Builtin_IRI

    def _Builtin_BNODE(self, e):
        if given(e, "arg") is None:
            return Value("_:b" + _per_row(lambda: uuid.uuid4().hex))
        row = pl.col(ROW_TOKEN) if ROW_TOKEN in self.columns else _per_row(lambda: uuid.uuid4().hex)
        # the same string gives the same node within one solution, a new one in the next
        text = self.text(e.arg)
        label = _python(text.lexical, lambda s: hashlib.sha1(s.encode("utf-8")).hexdigest()[:16])
        return Value(pl.when(text.ok & (text.language == "")).then("_:b" + row + "x" + label))

    def _Builtin_UUID(self, e):
        return Value("<urn:uuid:" + _per_row(lambda: str(uuid.uuid4())) + ">")

    def _Builtin_STRUUID(self, e):
        return Value(T.quoted(_per_row(lambda: str(uuid.uuid4()))))


def _check_pattern(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise SparqlError(f"the pattern {pattern!r} is not a regular expression: {exc}") from None
