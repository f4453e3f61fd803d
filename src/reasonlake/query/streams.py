"""RSP-QL's relation-to-stream operators and report policies over answers in the driver
(Dell'Aglio's thesis, definitions 5.9-5.12; decision 0036).

An answer is a SELECT query's solutions as a frame of String columns (N-Triples text, null
unbound), a multiset. RStream gives the answer itself. IStream and DStream are the thesis's
set differences: ``{μ | μ ∈ Ψ(t_j) ∧ μ ∉ Ψ(t_j-1)}`` and the reverse, each solution once
however often it occurs, an unbound variable equal only to an unbound one. The previous
answer ``Ψ(t_j-1)`` is the one at the previous close the query reported at (the previous
instant of its evaluation set), or the empty answer before the first.
"""
from __future__ import annotations

import polars as pl

from reasonlake.query.stream_policies import ReportPolicy, StreamOperator  # noqa: F401 (named here too)


def rows(operator: StreamOperator, previous: pl.DataFrame, current: pl.DataFrame) -> pl.DataFrame:
    """What ``operator`` streams out at a close whose answer is ``current``."""
    if operator == StreamOperator.RSTREAM:
        return current
    if operator == StreamOperator.ISTREAM:
        return difference(current, previous)
    return difference(previous, current)


def difference(left: pl.DataFrame, right: pl.DataFrame) -> pl.DataFrame:
    """The distinct solutions of ``left`` that ``right`` does not have (columns: ``left``'s)."""
    columns = left.columns
    distinct = left.unique(maintain_order=True)
    if not columns:  # solutions binding nothing: one empty solution or none
        return distinct.head(0) if right.height else distinct
    missing = [c for c in columns if c not in right.columns]
    right = right.with_columns(pl.lit(None, pl.String).alias(c) for c in missing).select(columns)
    return distinct.join(right.unique(), on=columns, how="anti", nulls_equal=True)


def reports(policy: ReportPolicy, previous: pl.DataFrame, current: pl.DataFrame, view_triples: int) -> bool:
    """Whether the query reports at a close: every close (on-close), a close whose answer is
    not the previous close's, as a multiset (on-change), a close where the view holds a
    triple (non-empty)."""
    if policy == ReportPolicy.ON_CLOSE:
        return True
    if policy == ReportPolicy.NON_EMPTY:
        return view_triples > 0
    return not same_multiset(previous, current)


def same_multiset(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    if a.height != b.height or sorted(a.columns) != sorted(b.columns):
        return a.height == b.height == 0
    if not a.columns:
        return True
    b = b.select(a.columns)
    counted = [f.group_by(a.columns).len() for f in (a, b)]
    return counted[0].join(counted[1], on=[*a.columns, "len"], how="anti", nulls_equal=True).height == 0
