"""Multisets of solutions as Polars LazyFrames, and SPARQL's operators between them
(SPARQL 1.1, 18.5: Join, LeftJoin, Union, Minus).

A frame has one String column per variable (N-Triples text, null: unbound) and a constant
``UNIT`` column, so that a solution binding no variable is a row too (the empty group
pattern is one such row, and a group by nothing groups on it). ``bound`` names the variables
bound in every row: joins on those are plain equi-joins, the others are joined by SPARQL's
compatibility (equal, or unbound on either side).
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

UNIT = "$unit"  # SPARQL variable names cannot hold '$': hidden columns start with it
ROW = "$row"


@dataclass(frozen=True, eq=False)  # compared by identity: a frame has no equality
class Solutions:
    frame: pl.LazyFrame
    variables: tuple[str, ...]
    bound: frozenset[str]

    @staticmethod
    def unit() -> Solutions:
        """The one empty solution: what an empty group pattern matches."""
        return Solutions(pl.LazyFrame({UNIT: [True]}), (), frozenset())

    @staticmethod
    def of(frame: pl.LazyFrame, variables, bound=None) -> Solutions:
        variables = tuple(variables)
        return Solutions(frame, variables, frozenset(variables if bound is None else bound))


def _right_name(var: str) -> str:
    return f"$right.{var}"


def _paired(left: Solutions, right: Solutions):
    """The pairs of rows that agree on the variables both bind in every row (an equi-join,
    or every pair when there is none); the other shared variables come from the right
    renamed (``_right_name``), for the caller to test."""
    shared = [v for v in left.variables if v in right.variables]
    exact = [v for v in shared if v in left.bound and v in right.bound]
    loose = [v for v in shared if v not in exact]
    frame = right.frame.drop(UNIT, strict=False)
    frame = frame.rename({v: _right_name(v) for v in loose})
    paired = left.frame.join(frame, on=exact, how="inner") if exact else left.frame.join(frame, how="cross")
    return paired, loose


def _agree(loose: list[str]) -> pl.Expr:
    """Compatible on the loose variables: equal where both are bound."""
    tests = [pl.col(v).is_null() | pl.col(_right_name(v)).is_null() | (pl.col(v) == pl.col(_right_name(v)))
             for v in loose]
    return pl.all_horizontal(tests) if tests else pl.lit(True)


def join(left: Solutions, right: Solutions) -> Solutions:
    paired, loose = _paired(left, right)
    merged = paired.filter(_agree(loose)).with_columns(
        [pl.coalesce(v, _right_name(v)).alias(v) for v in loose]).drop([_right_name(v) for v in loose])
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    return Solutions(merged.select([UNIT, *variables]), variables, left.bound | right.bound)


def left_join(left: Solutions, right: Solutions, condition=None) -> Solutions:
    """OPTIONAL: the compatible pairs that pass ``condition`` (a function of the joined
    solutions giving their frame with only the pairs that pass), and each left row that has none."""
    numbered = Solutions(numbered_rows(left.frame), (ROW, *left.variables), left.bound | {ROW})
    matched = join(numbered, right)
    if condition is not None:
        matched = Solutions(condition(matched), matched.variables, matched.bound)
    alone = numbered.frame.join(matched.frame.select(ROW).unique(), on=ROW, how="anti")
    variables = tuple(v for v in matched.variables if v != ROW)
    frame = pl.concat([matched.frame, alone], how="diagonal_relaxed")
    return Solutions(frame.select([UNIT, *variables]), variables, left.bound)


def minus(left: Solutions, right: Solutions) -> Solutions:
    """MINUS: a left row goes when a right row is compatible with it and shares a bound
    variable with it (18.5); with no variable in common nothing is removed."""
    shared = [v for v in left.variables if v in right.variables]
    if not shared:
        return left
    numbered = numbered_rows(left.frame)
    keys = Solutions(numbered.select([UNIT, ROW, *shared]), (ROW, *shared), left.bound | {ROW})
    right_keys = Solutions(right.frame.select([UNIT, *shared]).unique(), tuple(shared), right.bound)
    paired, loose = _paired(keys, right_keys)
    exact = len(loose) < len(shared)  # a variable bound on both sides in every row: always shared
    both_bound = pl.any_horizontal([pl.lit(exact)] + [pl.col(v).is_not_null() & pl.col(_right_name(v)).is_not_null()
                                                      for v in loose])
    removed = paired.filter(_agree(loose) & both_bound).select(ROW).unique()
    kept = numbered.join(removed, on=ROW, how="anti").drop(ROW)
    return Solutions(kept, left.variables, left.bound)


def numbered_rows(frame: pl.LazyFrame, name: str = ROW) -> pl.LazyFrame:
    """``frame`` with a row number, computed once: the plan is read twice after (the rows
    that match, the rows that do not), and a lazy plan may give its rows in another order
    each time it runs (parallel joins, ``unique``), so the numbers would not name one row."""
    return frame.with_row_index(name).collect().lazy()


def union(left: Solutions, right: Solutions) -> Solutions:
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    frame = pl.concat([left.frame, right.frame], how="diagonal_relaxed")
    return Solutions(frame.select([UNIT, *variables]), variables, left.bound & right.bound)


def project(solutions: Solutions, variables) -> Solutions:
    variables = tuple(dict.fromkeys(variables))
    columns = [pl.col(v) if v in solutions.variables else pl.lit(None, pl.String).alias(v) for v in variables]
    return Solutions(solutions.frame.select([pl.col(UNIT), *columns]), variables,
                     solutions.bound & frozenset(variables))
