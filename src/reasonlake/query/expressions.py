"""SPARQL expressions (rdflib's algebra) compiled to Polars expressions over a solutions frame.

Every expression compiles to a ``Value``: a String expression of N-Triples text (null: an
error, or an unbound variable) and, for the operators that answer true or false, the
Boolean expression itself (null: an error). SPARQL's three-valued logic is Polars':
``&``/``|`` over nulls are Kleene's (an error OR true is true), ``~`` keeps an error one,
and FILTER keeps the rows whose effective boolean value is true (17.2, 17.4.1.5).

Operators and functions follow SPARQL 1.1 section 17 by their W3C names; what is not here
raises ``SparqlError`` naming it.
"""
from __future__ import annotations

import re
from typing import Callable

import polars as pl
from rdflib import BNode, Literal, URIRef, Variable
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.errors import SparqlError
from reasonlake.query import casts
from reasonlake.query import terms as T
from reasonlake.query import value_rules as R
from reasonlake.query.builtins import Builtins, arguments
from reasonlake.query.events import EVENT
from reasonlake.query.solutions import END, START
from reasonlake.query.values import Text, Value, effective_boolean, truth_value


class Compiler(Builtins):
    """Compiles the expressions of one part of a query, over the columns ``columns`` (a
    variable that is not one of them is unbound everywhere). It is the value rules' reader
    (``value_rules.Reader``) over Polars's columns."""

    ops = T.POLARS

    def __init__(self, columns, exists: Callable | None = None, timed: bool = False,
                 integers: dict[str, str] | None = None):
        self.columns = set(columns)
        self.integers = integers or {}  # variable -> the column of its integer value (``Value.integer``)
        self.exists = exists  # (EXISTS node, negated) -> Boolean expression; None: not here
        self.timed = timed  # the frame has the solution's interval (EP-SPARQL's functions read it)
        # Each operator reads its arguments many times (a term is taken apart for every type
        # it may have): a nested argument is computed once into a hidden column first, or
        # the expression would grow exponentially with the nesting. ``apply`` adds them.
        self.prepared: list[pl.Expr] = []
        self.names: list[str] = []

    def apply(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` with the hidden columns the compiled expressions read (drop ``names`` after)."""
        for column in self.prepared:
            frame = frame.with_columns(column)
        return frame

    def _hidden(self, expr: pl.Expr) -> pl.Expr:
        if _is_plain(expr):
            return expr
        name = f"$x{len(self.names)}.{id(self)}"
        self.prepared.append(expr.alias(name))
        self.names.append(name)
        return pl.col(name)

    def compile(self, expr) -> Value:
        if isinstance(expr, Variable):
            name = str(expr)
            if name in self.integers:
                return Value(pl.col(name), integer=pl.col(self.integers[name]))
            return Value(pl.col(name) if name in self.columns else pl.lit(None, pl.String))
        if isinstance(expr, Literal) and (expr.datatype is None or str(expr.datatype) == T.XSD_STRING):
            return Value(pl.lit(T.constant(expr)), text=R.constant_text(self.ops, expr))
        if isinstance(expr, (URIRef, Literal)):
            return Value(pl.lit(T.constant(expr)))
        if isinstance(expr, BNode):
            raise SparqlError("a blank node in an expression is not supported")
        if isinstance(expr, CompValue):
            handler = getattr(self, f"_{expr.name}", None)
            if handler is None:
                raise SparqlError(f"{_shown(expr.name)} is not supported yet in reasonlake's SPARQL")
            return handler(expr)
        raise SparqlError(f"the expression {expr!r} is not supported yet in reasonlake's SPARQL")

    def term(self, expr) -> pl.Expr:
        """The expression's term, as a column of the frame ``apply`` makes."""
        return self._hidden(self.compile(expr).as_term())

    def text(self, expr) -> Text:
        """A string function's argument taken apart, each part computed once: the term is
        parsed once (the literal's pattern is a regular expression, 2 µs a row when each
        part parsed it again), and not at all where the value says its parts (``STR``)."""
        value = self.compile(expr)
        if value.text is not None:
            return value.text
        term = self._hidden(value.as_term())
        parts = self._hidden(T.literal_parts(term))
        language = self._hidden(pl.when(T.is_literal(term)).then(parts.struct.field("2").fill_null("")))
        return R.term_text(self.ops, term, self._hidden(T.unescaped(parts.struct.field("1"))), language)

    def truth(self, expr) -> pl.Expr:
        """The expression's effective boolean value, as a column of the frame ``apply`` makes."""
        value = self.compile(expr)
        if value.truth is not None:
            return self._hidden(value.truth)
        # the effective boolean value reads the term once per type it may have: the term is a
        # column first, or a computed one (1/0) would be copied into every branch
        return self._hidden(effective_boolean(self._hidden(value.term)))

    # -- the rules Spark decides too (``value_rules``): logic, term tests, string tests ------
    def _ruled(self, e) -> Value:
        return truth_value(R.truth(self, e))

    _ConditionalAndExpression = _ConditionalOrExpression = _UnaryNot = _ruled
    _Builtin_BOUND = _Builtin_sameTerm = _ruled
    _Builtin_isIRI = _Builtin_isURI = _Builtin_isBLANK = _Builtin_isLITERAL = _ruled
    _Builtin_CONTAINS = _Builtin_STRSTARTS = _Builtin_STRENDS = _ruled

    # -- comparison (17.3) --------------------------------------------------------------------
    def _RelationalExpression(self, e) -> Value:
        by_text = R.comparison(self, e)  # against an IRI, a count against an integer
        if by_text is not None:
            return truth_value(by_text)
        left = self.term(e.expr)
        if e.op in ("IN", "NOT IN"):
            # 17.4.1.9: IN is = against each member, ORed (an error is dropped where another matches)
            found = pl.lit(False)
            for member in arguments(e.other):
                found = found | compare("=", left, self.term(member), self._hidden)
            return truth_value(found if e.op == "IN" else ~found)
        op, right, constant, known = e.op, self.term(e.other), e.other, self.integer(e.expr)
        if not isinstance(constant, Literal) and isinstance(e.expr, Literal):  # 2 < ?x: ?x > 2
            op, left, right, constant = R.MIRRORED.get(op, op), right, left, e.expr
            known = self.integer(e.other)
        return truth_value(compare(op, left, right, self._hidden, constant, known))

    def integer(self, expr) -> pl.Expr | None:
        """A variable's integer value where a column holds it (``Value.integer``)."""
        return self.compile(expr).integer if isinstance(expr, Variable) else None

    def _Builtin_IF(self, e) -> Value:
        test = self.truth(e.arg1)
        return Value(pl.when(test).then(self.term(e.arg2)).when(~test).then(self.term(e.arg3)))

    def _Builtin_COALESCE(self, e) -> Value:
        args = arguments(e.arg)
        return Value(pl.coalesce([self.term(a) for a in args]) if args else pl.lit(None, pl.String))

    def _Builtin_EXISTS(self, e) -> Value:
        return self._exists(e, negated=False)

    def _Builtin_NOTEXISTS(self, e) -> Value:
        return self._exists(e, negated=True)

    def _exists(self, e, negated: bool) -> Value:
        if self.exists is None:
            raise SparqlError(f"{'NOT EXISTS' if negated else 'EXISTS'} is not supported yet outside a group's "
                              "FILTER (in an OPTIONAL's FILTER, BIND, SELECT or ORDER BY)")
        return truth_value(self.exists(e, negated))

    # -- arithmetic (17.4.4 ... numeric type promotion) -------------------------------------
    def _AdditiveExpression(self, e) -> Value:
        return self._arithmetic(e)

    def _MultiplicativeExpression(self, e) -> Value:
        return self._arithmetic(e)

    def _arithmetic(self, e) -> Value:
        out = self.term(e.expr)
        for op, other in zip(e.op, e.other):
            out = self._hidden(arithmetic(op, out, self.term(other), self._hidden))
        return Value(out)

    def _UnaryMinus(self, e) -> Value:
        term = self.term(e.expr)
        return Value(T.numeric_term(T.numeric_rank(term), -T.number(term), -T.integer(term)))

    def _UnaryPlus(self, e) -> Value:
        term = self.term(e.expr)
        return Value(pl.when(T.numeric_rank(term).is_not_null()).then(term))

    # -- terms (17.4.2) ---------------------------------------------------------------------
    def _Builtin_isNUMERIC(self, e) -> Value:
        term = self.term(e.arg)
        return truth_value(pl.when(term.is_not_null()).then(T.numeric_rank(term).is_not_null()))

    def _Builtin_STR(self, e) -> Value:
        term = self.term(e.arg)
        lexical = self._hidden(R.str_value(self.ops, term, T.lexical(term), T.iri_value(term)))
        return Value(T.simple_literal(lexical), text=R.simple_text(self.ops, lexical))

    def _Builtin_LANG(self, e) -> Value:
        term = self.term(e.arg)
        return Value(pl.when(T.is_literal(term)).then(T.simple_literal(T.language(term))))

    def _Builtin_DATATYPE(self, e) -> Value:
        return Value(T.iri_term(T.datatype(self.term(e.arg))))

    def _Builtin_LANGMATCHES(self, e) -> Value:
        tag, wanted = self.term(e.arg1), self.term(e.arg2)
        tag_text, range_text = T.lexical(tag).str.to_lowercase(), T.lexical(wanted).str.to_lowercase()
        # RFC 4647 basic filtering: "*" matches any tag but none; else the range or a prefix of it and "-"
        matches = (pl.when(range_text == "*").then(tag_text != "")
                   .otherwise((tag_text == range_text) | tag_text.str.starts_with(range_text + "-")))
        return truth_value(pl.when(T.is_simple(tag) & T.is_simple(wanted)).then(matches))

    # -- strings (17.4.3) ---------------------------------------------------------------------
    def _Builtin_STRLEN(self, e) -> Value:
        text = self.text(e.arg)
        return Value(pl.when(text.ok).then(T.integer_term(text.lexical.str.len_chars())))

    def _Builtin_UCASE(self, e) -> Value:
        return self._case(e, upper=True)

    def _Builtin_LCASE(self, e) -> Value:
        return self._case(e, upper=False)

    def _case(self, e, upper: bool) -> Value:
        text = self.text(e.arg)
        changed = text.lexical.str.to_uppercase() if upper else text.lexical.str.to_lowercase()
        return Value(pl.when(text.ok).then(T.string_like(changed, text.language)))

    def _Builtin_CONCAT(self, e) -> Value:
        args = [self.term(a) for a in arguments(e.arg)]
        if not args:
            return Value(T.simple_literal(pl.lit("")))
        all_strings = pl.all_horizontal([T.is_string_literal(a) for a in args])
        text = pl.concat_str([T.lexical(a) for a in args])
        # the result keeps a language tag that every argument has (17.4.3.12)
        first = T.language(args[0])
        one_tag = pl.all_horizontal([T.language(a) == first for a in args])
        lang = pl.when(one_tag).then(first).otherwise(pl.lit(""))
        return Value(pl.when(all_strings).then(T.string_like(text, lang)))

    def _Builtin_REGEX(self, e) -> Value:
        text = self.text(e.text)
        if not isinstance(e.pattern, Literal) or (e.flags is not None and not isinstance(e.flags, Literal)):
            raise SparqlError("REGEX with a pattern or flags that are not constant strings is not supported yet")
        flags = str(e.flags) if e.flags is not None else ""
        if set(flags) - set("ismx"):
            raise SparqlError(f"REGEX flag(s) {flags!r} are not supported (i, s, m, x are)")
        pattern = (f"(?{flags})" if flags else "") + str(e.pattern)
        try:

            re.compile(str(e.pattern))
        except re.error as exc:
            raise SparqlError(f"REGEX pattern {str(e.pattern)!r} is not a regular expression: {exc}") from None
        return truth_value(pl.when(text.ok).then(text.lexical.str.contains(pattern)))

    def _Function(self, e) -> Value:
        if str(e.iri).startswith(EVENT) and not e.expr:
            if not self.timed:
                raise SparqlError("getDURATION(), getSTARTTIME() and getENDTIME() read the interval of a pattern's "
                                  "occurrences: here (in a sub-query's projection, a GROUP BY) there is none")
            made = {"duration": lambda: T.duration_term(pl.col(END) - pl.col(START)),
                    "start": lambda: T.moment_term(pl.col(START)),
                    "end": lambda: T.moment_term(pl.col(END))}.get(str(e.iri)[len(EVENT):])
            if made is not None:
                return Value(made())
        if str(e.iri) in casts.TARGETS:
            args = arguments(e.expr)
            if len(args) != 1:
                raise SparqlError(f"the cast <{e.iri}> takes one argument, not {len(args)}")
            return Value(casts.cast(str(e.iri), self.term(args[0]), self._hidden))
        raise SparqlError(f"the function or cast <{e.iri}> is not supported yet in reasonlake's SPARQL")


def _is_plain(expr: pl.Expr) -> bool:
    """A column or a constant: cheap to read again."""
    meta = expr.meta
    return meta.is_column() or meta.is_literal(allow_aliasing=True)


def compare(op: str, a: pl.Expr, b: pl.Expr, hidden: Callable[[pl.Expr], pl.Expr], constant=None,
            integer: pl.Expr | None = None) -> pl.Expr:
    """``a op b`` by value (17.3's operator mapping); null: a type error. ``constant``: the
    rdflib term ``b`` is, when it is one; ``integer``: ``a``'s value, where ``a`` is an
    integer by construction (a COUNT: compared with a numeric constant as it is).

    Each of a term's values (as a number, an integer, a boolean, a moment, a string) is read
    several times below, and Polars computes an expression again wherever a branch repeats
    it: ``hidden`` (``Compiler._hidden``) makes each a column computed once, and each parser
    sees only the terms of its types (``of_types``). A HAVING over 100k counts took 2.4 s."""
    number = _constant_number(constant)
    if number is not None:
        return _compare_number(op, a, b, hidden, *number, integer=integer)
    if isinstance(constant, Literal) and constant.language is None and \
            (constant.datatype is None or str(constant.datatype) == T.XSD_STRING):
        # a constant string compares only with a string: no other value of ``a`` is parsed
        # (eight tests of a GROUP_CONCAT against strings took 2.7 s of compiling and parsing)
        la = hidden(pl.when(T.is_simple(a)).then(T.lexical(a)))
        return _decided(op, a, b, pl.when(la.is_not_null()).then(_by(op)(la, pl.lit(str(constant)))),
                        la.is_not_null())
    numbers = [hidden(T.of_types(t, list(T.NUMERIC_RANK))) for t in (a, b)]
    moments = [hidden(T.of_types(t, [T.XSD_DATETIME, T.XSD_DATE])) for t in (a, b)]
    na, nb = (hidden(T.number(t)) for t in numbers)
    ia, ib = (hidden(T.integer(t)) for t in numbers)  # null but for rank 0, the integer types
    ba, bb = (hidden(T.boolean(T.of_types(t, [T.XSD_BOOLEAN]))) for t in (a, b))
    ka, kb = (hidden(T.moment_kind(t)) for t in moments)
    ma, mb = (hidden(T.moment(t)) for t in moments)
    la, lb = (hidden(pl.when(T.is_simple(t)).then(T.lexical(t))) for t in (a, b))
    da, db = (hidden(T.duration(T.of_types(t, [T.XSD_DURATION, T.XSD_DAY_TIME_DURATION]))) for t in (a, b))
    both_numbers = na.is_not_null() & nb.is_not_null()
    both_simple = T.is_simple(a) & T.is_simple(b)
    both_booleans = ba.is_not_null() & bb.is_not_null()
    both_moments = ka.is_not_null() & (ka == kb)
    both_integers = ia.is_not_null() & ib.is_not_null()
    both_durations = da.is_not_null() & db.is_not_null()

    by = _by(op)
    valued = (pl.when(both_integers).then(by(ia, ib))  # exact beyond 2**53
              .when(both_numbers).then(by(na, nb))
              .when(both_simple).then(by(la, lb))
              .when(both_booleans).then(by(ba.cast(pl.Int8), bb.cast(pl.Int8)))
              .when(both_moments).then(by(ma, mb))
              .when(both_durations).then(by(da, db)))
    comparable = both_numbers | both_simple | both_booleans | both_moments | both_durations
    return _decided(op, a, b, valued, comparable)


def _by(op: str):
    """The operator over two values; = and != are one test by value: != is its negation
    (``_decided``), an error staying one."""
    asked = "=" if op in ("=", "!=") else op
    return lambda x, y: {"=": x == y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[asked]


def _decided(op: str, a: pl.Expr, b: pl.Expr, valued: pl.Expr, comparable: pl.Expr) -> pl.Expr:
    """``a op b`` from the comparison by value (``valued``, where ``comparable``)."""
    known = a.is_not_null() & b.is_not_null()
    if op in ("=", "!="):
        # RDFterm-equal: the same term is equal; two different literals of types without an
        # operator are an error; an IRI or blank node and anything else differ
        literals = T.is_literal(a) & T.is_literal(b)
        term_equal = pl.when(a == b).then(True).when(literals).then(None).otherwise(False)
        equal = pl.when(comparable).then(valued).otherwise(term_equal)
        return pl.when(known).then(equal if op == "=" else ~equal)
    return pl.when(known & comparable).then(valued)


def _constant_number(constant) -> tuple[float, int | None] | None:
    """A numeric literal's value as a float and (an integer literal's) as an integer, by
    the very parsers the rows go through; None: not a valid numeric literal."""
    if not isinstance(constant, Literal) or constant.datatype is None:
        return None
    term = pl.lit(T.constant(constant))
    found = pl.select(T.number(term).alias("n"), T.integer(term).alias("i")).row(0)
    return None if found[0] is None else found


def _compare_number(op: str, a: pl.Expr, b: pl.Expr, hidden, value: float, exact: int | None,
                    integer: pl.Expr | None = None) -> pl.Expr:
    """``compare`` against a numeric constant ``b`` (``value``, ``exact`` where it is an
    integer): only ``a``'s numeric value can be compared with it, so only that is parsed
    (a HAVING (COUNT(?x) > 2) over 333k groups: the moments, booleans, durations and
    strings of every count were parsed for nothing), and not even that where ``integer``
    holds it."""
    by = _by(op)
    if integer is not None:
        valued = by(integer, pl.lit(exact, pl.Int64)) if exact is not None else \
            by(integer.cast(pl.Float64), pl.lit(value, pl.Float64))
        return _decided(op, a, b, pl.when(integer.is_not_null()).then(valued), integer.is_not_null())
    numbers = hidden(T.of_types(a, list(T.NUMERIC_RANK)))
    na = hidden(T.number(numbers))
    valued = pl.when(na.is_not_null()).then(by(na, pl.lit(value, pl.Float64)))
    if exact is not None:  # exact beyond 2**53
        ia = hidden(T.integer(numbers))
        valued = pl.when(ia.is_not_null()).then(by(ia, pl.lit(exact, pl.Int64))).otherwise(valued)
    return _decided(op, a, b, valued, na.is_not_null())


def arithmetic(op: str, a: pl.Expr, b: pl.Expr, hidden: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """``a op b`` for numbers (17.3 and XPath's op:numeric-*): the result's type is the wider
    operand's, and / of integers is a decimal; a division by zero is an error but for floats.
    ``hidden`` (``Compiler._hidden``) computes each part once: the result is written from
    them in four branches, and each value parses the term again."""
    ra, rb = hidden(T.numeric_rank(a)), hidden(T.numeric_rank(b))
    rank = pl.max_horizontal(ra, rb)
    if op == "/":
        rank = pl.max_horizontal(rank, pl.lit(1, pl.Int8))
    rank = pl.when(ra.is_not_null() & rb.is_not_null()).then(rank)
    na, nb = hidden(pl.when(ra.is_not_null()).then(T.lexical(a).cast(pl.Float64, strict=False))), \
        hidden(pl.when(rb.is_not_null()).then(T.lexical(b).cast(pl.Float64, strict=False)))
    ia, ib = hidden(T.integer(a)), hidden(T.integer(b))
    if op == "+":
        as_float, as_integer = na + nb, ia + ib
    elif op == "-":
        as_float, as_integer = na - nb, ia - ib
    elif op == "*":
        as_float, as_integer = na * nb, ia * ib
    elif op == "/":
        as_float, as_integer = na / nb, pl.lit(None, pl.Int64)
        rank = pl.when((nb != 0) | (rank >= 2)).then(rank)
    else:
        raise SparqlError(f"the operator {op!r} is not supported")
    return T.numeric_term(hidden(rank), hidden(as_float), hidden(as_integer))


def _shown(name: str) -> str:
    """A rdflib node name as the SPARQL a user wrote: Builtin_STRUUID -> STRUUID()."""
    if name.startswith("Builtin_"):
        return f"the function {name[len('Builtin_'):]}()"
    if name.startswith("Aggregate_"):
        return f"the aggregate {name[len('Aggregate_'):].upper()}()"
    return f"'{name}'"
