"""The FILTER conditions Spark decides with its own expressions, in the JVM, where the
Polars step (``query.expressions``) would send every row to a Python worker and back: on 2
cores the IMaRS "join" query's ``STRENDS(STR(?a), "7")`` over 2.1M matches took 2.2-2.8 s
that way (decision 0055).

A condition is translated only when each of its parts is one the value rules decide
(``query/value_rules``, the very rules the Polars step compiles, here over Spark's columns):
``&&``, ``||``, ``!``; ``STRSTARTS``, ``STRENDS``, ``CONTAINS`` of ``STR(?x)`` or ``?x`` with
a string constant; ``isIRI``, ``isBLANK``, ``isLITERAL``, ``BOUND``, ``sameTerm``; ``=`` and
``!=`` (and ``IN``) against an IRI; a COUNT's integer (``aggregates.integer_column``) against
an integer. Anything else: None, and the Polars step decides as before. What is written here
is only how Spark reads a condition's arguments.

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
from reasonlake.query import value_rules as R


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


class SparkColumns:
    """Spark's column expressions, as the value rules read them (``value_rules.Columns``);
    each test is called on the column (a Spark Connect column is not the classic class)."""

    def lit(self, value: str | bool) -> Column:
        return F.lit(value)

    def integer(self, value: int) -> Column:
        return F.lit(value).cast("long")

    def when(self, condition: Column, then: Column, otherwise: Column | None = None) -> Column:
        chosen = F.when(condition, then)
        return chosen if otherwise is None else chosen.otherwise(otherwise)

    def is_not_null(self, column: Column) -> Column:
        return column.isNotNull()

    def starts_with(self, column: Column, prefix: str | Column) -> Column:
        return column.startswith(prefix)

    def ends_with(self, column: Column, suffix: str | Column) -> Column:
        return column.endswith(suffix)

    def contains(self, column: Column, part: str | Column) -> Column:
        return column.contains(part)


SPARK = SparkColumns()


class _Translator:
    """The value rules' reader (``value_rules.Reader``) over Spark's columns: a part the
    rules do not decide, or an argument read here cannot give, raises ``_NotHere``."""

    ops = SPARK

    def __init__(self, columns: set[str], physical, integers: dict[str, str], reads: set[str]):
        self.columns, self.physical, self.integers, self.reads = columns, physical, integers, reads

    def truth(self, e) -> Column:
        found = R.truth(self, e)
        if found is None:
            raise _NotHere
        return found

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

    def text(self, e) -> R.Text[Column]:
        if isinstance(e, Literal) and (e.datatype is None or str(e.datatype) == T.XSD_STRING):
            return R.constant_text(SPARK, e)
        if isinstance(e, CompValue) and e.name == "Builtin_STR":
            term = self.term(e.arg)
            return R.simple_text(SPARK, R.str_value(SPARK, term, _lexical(term), _iri_value(term)))
        if isinstance(e, Variable):
            term = self.term(e)
            language = F.when(R.is_literal(SPARK, term), F.regexp_extract(term, r'^"[^"]*"@(.*)$', 1))
            return R.term_text(SPARK, term, _lexical(term), language)
        raise _NotHere

    def integer(self, e) -> Column | None:
        """A count's integer column, null where the count is (``aggregates.integer_column``)."""
        name = str(e)
        if isinstance(e, Variable) and name in self.integers and name in self.columns:
            return F.col(self.physical(self.integers[name]))
        return None


def _lexical(term: Column) -> Column:
    """A literal's lexical form where its text has no backslash: up to the second quote
    (read where the term is a literal: ``value_rules`` chooses)."""
    return F.regexp_extract(term, r'^"([^"]*)"', 1)


def _iri_value(term: Column) -> Column:
    """An IRI's text without the brackets (read where the term is an IRI)."""
    return term.substr(F.lit(2), F.length(term) - 2)
