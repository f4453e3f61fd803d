"""Multisets of solutions, and SPARQL's operators between them (SPARQL 1.1, 18.5: Join,
LeftJoin, Union, Minus), in either dialect of the plan (``polars_frames``, the driver's;
``engine/spark_frames``, Spark's).

A frame has one String column per variable (N-Triples text, null: unbound) and a constant
``UNIT`` column, so that a solution binding no variable is a row too (the empty group
pattern is one such row, and a group by nothing groups on it). ``bound`` names the variables
bound in every row: joins on those are plain equi-joins, the others are joined by SPARQL's
compatibility (equal, or unbound on either side).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

UNIT = "$unit"  # SPARQL variable names cannot hold '$': hidden columns start with it
ROW = "$row"


@dataclass(frozen=True, eq=False)  # compared by identity: a frame has no equality
class Solutions:
    frame: Any  # the dialect's frame: a Polars LazyFrame or a Spark DataFrame
    variables: tuple[str, ...]
    bound: frozenset[str]
    frames: Any  # the dialect (PolarsFrames, SparkFrames)

    @staticmethod
    def unit(frames) -> Solutions:
        """The one empty solution: what an empty group pattern matches."""
        return Solutions(frames.constant({UNIT: [True]}, {UNIT: pl.Boolean}), (), frozenset(), frames)

    @staticmethod
    def of(frames, frame, variables, bound=None) -> Solutions:
        variables = tuple(variables)
        return Solutions(frame, variables, frozenset(variables if bound is None else bound), frames)

    def but(self, frame, variables=None, bound=None) -> Solutions:
        """The same solutions' dialect with another frame (and variables, bound)."""
        return Solutions(frame, self.variables if variables is None else tuple(variables),
                         self.bound if bound is None else frozenset(bound), self.frames)


def _right_name(var: str) -> str:
    return f"$right.{var}"


def _paired(left: Solutions, right: Solutions):
    """The pairs of rows that agree on the variables both bind in every row (an equi-join,
    or every pair when there is none); the other shared variables come from the right
    renamed (``_right_name``), for the caller to test."""
    frames = left.frames
    shared = [v for v in left.variables if v in right.variables]
    exact = [v for v in shared if v in left.bound and v in right.bound]
    loose = [v for v in shared if v not in exact]
    # the right's UNIT comes along under a name of its own: a frame of no columns has no rows
    renamed = {(_right_name(c) if c in loose or c == UNIT else c): c for c in frames.names(right.frame)}
    paired = frames.join(left.frame, frames.select(right.frame, renamed), exact)
    return paired, [(v, _right_name(v)) for v in loose]


def _columns(names) -> dict[str, str]:
    return {n: n for n in names}


def join(left: Solutions, right: Solutions) -> Solutions:
    frames = left.frames
    paired, loose = _paired(left, right)
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    merged = frames.compatible(paired, loose)
    return left.but(frames.select(merged, _columns([UNIT, *variables])), variables, left.bound | right.bound)


def left_join(left: Solutions, right: Solutions, condition=None) -> Solutions:
    """OPTIONAL: the compatible pairs that pass ``condition`` (a function of the joined
    solutions giving their frame with only the pairs that pass), and each left row that has none."""
    frames = left.frames
    numbered = left.but(frames.numbered(left.frame, ROW), (ROW, *left.variables), left.bound | {ROW})
    matched = join(numbered, right)
    if condition is not None:
        matched = matched.but(condition(matched))
    alone = frames.join(numbered.frame, frames.unique(frames.select(matched.frame, {ROW: ROW})), [ROW], "anti")
    variables = tuple(v for v in matched.variables if v != ROW)
    frame = frames.concat([frames.select(matched.frame, _columns([UNIT, *variables])),
                           frames.select(alone, _columns([UNIT, *left.variables]))])
    return left.but(frames.select(frame, _columns([UNIT, *variables])), variables, left.bound)


def minus(left: Solutions, right: Solutions) -> Solutions:
    """MINUS: a left row goes when a right row is compatible with it and shares a bound
    variable with it (18.5); with no variable in common nothing is removed."""
    frames = left.frames
    shared = [v for v in left.variables if v in right.variables]
    if not shared:
        return left
    numbered = frames.numbered(left.frame, ROW)
    keys = left.but(frames.select(numbered, _columns([UNIT, ROW, *shared])), (ROW, *shared), left.bound | {ROW})
    right_keys = right.but(frames.unique(frames.select(right.frame, _columns([UNIT, *shared]))), tuple(shared))
    paired, loose = _paired(keys, right_keys)
    # a variable bound on both sides in every row is always shared: then any compatible pair removes
    removed = frames.compatible(paired, loose, sharing=len(loose) == len(shared), merge=False)
    kept = frames.join(numbered, frames.unique(frames.select(removed, {ROW: ROW})), [ROW], "anti")
    return left.but(frames.select(kept, _columns([UNIT, *left.variables])))


def union(left: Solutions, right: Solutions) -> Solutions:
    frames = left.frames
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    frame = frames.concat([left.frame, right.frame])
    return left.but(frames.select(frame, _columns([UNIT, *variables])), variables, left.bound & right.bound)


def project(solutions: Solutions, variables) -> Solutions:
    variables = tuple(dict.fromkeys(variables))
    frames = solutions.frames
    columns = {UNIT: UNIT, **{v: (v if v in solutions.variables else None) for v in variables}}
    return solutions.but(frames.select(solutions.frame, columns), variables, solutions.bound & frozenset(variables))
