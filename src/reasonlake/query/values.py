"""What an expression compiles to: a term and, where it has them, its truth and its parts."""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.query import terms as T
from reasonlake.query.value_rules import Text


@dataclass(frozen=True)
class Value:
    term: pl.Expr
    truth: pl.Expr | None = None  # set for the operators that give a boolean
    # set where the value is a string by construction (STR, a constant string): the string
    # functions read its parts as they are, instead of parsing the term they would write
    text: Text[pl.Expr] | None = None
    # set where the value is an integer by construction (a COUNT's result): compared as it is
    integer: pl.Expr | None = None

    def as_term(self) -> pl.Expr:
        return self.term

    def as_truth(self) -> pl.Expr:
        """The effective boolean value (17.2.2); null: a type error."""
        return self.truth if self.truth is not None else effective_boolean(self.term)


def truth_value(value: pl.Expr) -> Value:
    return Value(T.boolean_term(value), value)


def effective_boolean(term: pl.Expr) -> pl.Expr:
    number = T.number(term)
    is_boolean_type = T.written_datatype(term) == T.XSD_BOOLEAN
    numeric_type = T.written_datatype(term).is_in(list(T.NUMERIC_RANK))
    return (pl.when(is_boolean_type).then(T.boolean(term).fill_null(False))  # ill-typed: false
            .when(numeric_type).then(pl.when(number.is_null()).then(False)
                                     .otherwise((number != 0) & ~number.is_nan()))
            .when(T.is_string_literal(term)).then(T.lexical(term).str.len_chars() > 0))
