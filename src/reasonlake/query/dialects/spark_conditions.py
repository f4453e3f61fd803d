"""The FILTER conditions Spark decides with its own expressions, in the JVM, where the
Polars step (``query.expressions``) would send every row to a Python worker and back: on 2
cores the IMaRS "join" query's ``STRENDS(STR(?a), "7")`` over 2.1M matches took 2.2-2.8 s
that way (decision 0055).

A condition is translated only when each of its parts is one of the few written here, by
the same rules of SPARQL 1.1 section 17 (null is an error, and SQL's three-valued logic is
SPARQL's: an error OR true is true, NOT keeps an error): ``&&``, ``||``, ``!``; ``STRSTARTS``,
``STRENDS``, ``CONTAINS`` of ``STR(?x)`` or ``?x`` with a string constant; ``isIRI``,
``isBLANK``, ``isLITERAL``, ``BOUND``, ``sameTerm``; ``=`` and ``!=`` (and ``IN``) against an
IRI; a COUNT's integer (``aggregates.integer_column``) against an integer. Anything else:
None, and the Polars step decides as before.

A term is decided here only when its text holds no backslash: then a literal's lexical form
is exactly what lies between its first two quotes (N-Triples escapes every quote and line
break of it) and an IRI's is its text without the brackets. A row with a backslash in a term
the condition reads goes to the Polars step, which unescapes: the answer is the same rows
either way, one set of value rules, and Python sees only the rare rows that need it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F
from rdflib import Literal, URIRef, Variable
from rdflib.plugins.sparql.parserutils import CompValue

from reasonlake.query import terms as T


@dataclass(frozen=True)
class Condition:
    """A FILTER condition in Spark's expressions: ``truth`` (null: an error) is what it
    says of a row where ``decided`` is true; elsewhere the Polars step decides."""

    truth: Column
    decided: Column
    # it reads no term, only counts' integer values: decided on every row, the Polars step not needed
    complete: bool = False


class _NotHere(Exception):
    """A part of the condition this module does not translate."""


def condition(expr, columns, physical, integers: dict[str, str] | None = None) -> Condition | None:
    """``expr`` (rdflib's algebra) over the solutions' ``columns`` (logical names; a variable
    that is not one of them is unbound), each stored as ``physical(name)``; ``integers``: a
    variable's integer column. None where a part of it is not translated here."""
    reads: set[str] = set()
    try:
        truth = _Translator(set(columns), physical, integers or {}, reads).truth(expr)
    except _NotHere:
        return None
    # a term with a backslash holds an escape: decided by the Polars step, which unescapes
    plain = [~F.coalesce(F.col(physical(name)).contains("\\"), F.lit(False)) for name in sorted(reads)]
    return Condition(truth, reduce(lambda a, b: a & b, plain, F.lit(True)), complete=not reads)


@dataclass(frozen=True)
class _Text:
    """A string function's argument (17.4.3.1): a simple or language-tagged literal
    (``ok``), its lexical form and its language tag ("" for none)."""

    ok: Column
    lexical: Column
    language: Column


class _Translator:
    def __init__(self, columns: set[str], physical, integers: dict[str, str], reads: set[str]):
        self.columns, self.physical, self.integers, self.reads = columns, physical, integers, reads

    def truth(self, e) -> Column:
        """The effective boolean value of a condition (null: an error)."""
        name = e.name if isinstance(e, CompValue) else None
        if name == "ConditionalAndExpression":
            return reduce(lambda a, b: a & b, [self.truth(x) for x in [e.expr, *(e.other or [])]])
        if name == "ConditionalOrExpression":
            return reduce(lambda a, b: a | b, [self.truth(x) for x in [e.expr, *(e.other or [])]])
        if name == "UnaryNot":
            return ~self.truth(e.expr)
        if name in ("Builtin_STRSTARTS", "Builtin_STRENDS", "Builtin_CONTAINS"):
            return self._string_test(e)
        if name in ("Builtin_isIRI", "Builtin_isURI"):
            return self.term(e.arg).startswith("<")
        if name == "Builtin_isBLANK":
            return self.term(e.arg).startswith("_:")
        if name == "Builtin_isLITERAL":
            return self.term(e.arg).startswith('"')
        if name == "Builtin_BOUND":
            return self.term(e.arg).isNotNull()
        if name == "Builtin_sameTerm":
            a, b = self.term(e.arg1), self.term(e.arg2)
            return F.when(a.isNotNull() & b.isNotNull(), a == b)
        if name == "RelationalExpression":
            return self._relation(e)
        raise _NotHere

    def term(self, e) -> Column:
        """A term's N-Triples text (null: unbound)."""
        if isinstance(e, Variable):
            name = str(e)
            if name not in self.columns:
                return F.lit(None).cast("string")
            self.reads.add(name)
            return F.col(self.physical(name))
        if not isinstance(e, (URIRef, Literal)):
            raise _NotHere
        written = T.constant(e)
        if "\\" in written:  # an escape: its text would not be read as a row's term is
            raise _NotHere
        return F.lit(written)

    def _string_test(self, e) -> Column:
        a, b = self._text(e.arg1), self._text(e.arg2)
        # called on the column (a Spark Connect column is not the classic class)
        test = {"Builtin_STRSTARTS": lambda x, y: x.startswith(y), "Builtin_STRENDS": lambda x, y: x.endswith(y),
                "Builtin_CONTAINS": lambda x, y: x.contains(y)}[e.name]
        # 17.4.3.1.1: both simple, both with one language tag, or the second simple
        compatible = a.ok & b.ok & ((b.language == "") | (a.language == b.language))
        general = F.when(compatible, test(a.lexical, b.lexical))
        iri = self._iri_string_test(e)
        return general if iri is None else F.when(iri[0], iri[1]).otherwise(general)

    def _iri_string_test(self, e) -> tuple[Column, Column] | None:
        """For ``STR(term)`` against a simple string constant holding no bracket: (the term is
        an IRI, the test on the IRI's text as written, brackets and all). The IRI's value is
        the text between its brackets, so it ends with the constant when the text ends with
        the constant and ``>``, and so on: no value cut out of each row's text first (on 2
        cores the cut made a pushed-down STRENDS over the IMaRS window's 2.1M matches 0.42-0.5
        s against 0.08-0.09 s; decision 0066). None for any other pair of arguments."""
        arg, constant = e.arg1, e.arg2
        if not (isinstance(arg, CompValue) and arg.name == "Builtin_STR") or not isinstance(constant, Literal) \
                or constant.language or (constant.datatype is not None and str(constant.datatype) != T.XSD_STRING):
            return None
        text = str(constant)
        if any(c in text for c in '<>"\\'):
            return None
        term = self.term(arg.arg)
        test = {"Builtin_STRSTARTS": term.startswith("<" + text), "Builtin_STRENDS": term.endswith(text + ">"),
                "Builtin_CONTAINS": term.contains(text)}[e.name]
        return term.startswith("<"), test

    def _text(self, e) -> _Text:
        if isinstance(e, Literal) and (e.datatype is None or str(e.datatype) == T.XSD_STRING):
            return _Text(F.lit(True), F.lit(str(e)), F.lit(e.language or ""))
        if isinstance(e, CompValue) and e.name == "Builtin_STR":
            term = self.term(e.arg)
            lexical = F.coalesce(_lexical(term), _iri_value(term))
            return _Text(lexical.isNotNull(), lexical, F.lit(""))
        if isinstance(e, Variable):
            term = self.term(e)
            literal = term.startswith('"')
            language = F.when(literal, F.regexp_extract(term, r'^"[^"]*"@(.*)$', 1))
            return _Text(literal & (term.endswith('"') | (language != "")), _lexical(term), language)
        raise _NotHere

    def _relation(self, e) -> Column:
        if e.op in ("IN", "NOT IN"):
            if not isinstance(e.expr, Variable) or not all(isinstance(m, URIRef) for m in e.other):
                raise _NotHere
            term = self.term(e.expr)
            # = against an IRI is the terms' equality (RDFterm-equal: an IRI differs from any other term)
            found = reduce(lambda a, b: a | b, [term == F.lit(T.constant(m)) for m in e.other], F.lit(False))
            return found if e.op == "IN" else ~found  # unbound: null, an error, either way
        left, right, op = e.expr, e.other, e.op
        if isinstance(left, (URIRef, Literal)):  # <iri> = ?x, 2 < ?x: the variable first
            left, right, op = right, left, _MIRRORED.get(op, op)
        if isinstance(right, URIRef) and op in ("=", "!="):
            term = self.term(left)
            equal = term == F.lit(T.constant(right))
            return equal if op == "=" else ~equal
        if isinstance(left, Variable) and str(left) in self.integers and _is_integer(right) \
                and str(left) in self.columns:
            value = F.col(self.physical(self.integers[str(left)]))  # null where the count is
            exact = F.lit(int(right.toPython())).cast("long")
            return {"=": value == exact, "!=": value != exact, "<": value < exact, ">": value > exact,
                    "<=": value <= exact, ">=": value >= exact}[op]
        raise _NotHere


_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _is_integer(term) -> bool:
    return isinstance(term, Literal) and term.datatype is not None and str(term.datatype) == T.XSD_INTEGER \
        and isinstance(term.toPython(), int) and -2 ** 63 <= term.toPython() < 2 ** 63


def _lexical(term: Column) -> Column:
    """A literal's lexical form where its text has no backslash: up to the second quote."""
    return F.when(term.startswith('"'), F.regexp_extract(term, r'^"([^"]*)"', 1))


def _iri_value(term: Column) -> Column:
    """An IRI's text without the brackets."""
    return F.when(term.startswith("<"), term.substr(F.lit(2), F.length(term) - 2))
