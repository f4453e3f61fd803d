"""Multisets of solutions, and SPARQL's operators between them (SPARQL 1.1, 18.5: Join,
LeftJoin, Union, Minus), in either dialect of the plan (``polars_frames``, the driver's;
``query/dialects/spark_frames``, Spark's).

A frame has one String column per variable (N-Triples text, null: unbound) and a constant
``UNIT`` column, so that a solution binding no variable is a row too (the empty group
pattern is one such row, and a group by nothing groups on it). ``bound`` names the variables
bound in every row: joins on those are plain equi-joins, the others are joined by SPARQL's
compatibility (equal, or unbound on either side).

In a query with event operators (``events``, EP-SPARQL) a solution is timed: ``START`` and
``END`` (Int64 milliseconds) hold the interval of the occurrences it matched, and a join
combines two solutions' intervals into the one that spans both (the paper's combination:
the earlier start, the later end). ``when`` tests the two intervals before they combine:
"seq" (the left ends before the right starts), "after" (the right ends before the left
starts), "equals" (the same interval).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import polars as pl

from reasonlake.errors import SparqlError
from reasonlake.query.dialects.protocol import END, ROW, START, TIMES, UNIT, Frames  # noqa: F401 (the plan's names)

_RIGHT_START, _RIGHT_END = "$right.start", "$right.end"


@dataclass(frozen=True, eq=False)  # compared by identity: a frame has no equality
class Solutions:
    frame: Any  # the dialect's frame: a Polars LazyFrame or a Spark DataFrame
    variables: tuple[str, ...]
    bound: frozenset[str]
    frames: Frames  # the dialect (PolarsFrames, SparkFrames)
    timed: bool = False  # the frame has START and END

    @property
    def hidden(self) -> tuple[str, ...]:
        """The columns every operator keeps beside the variables."""
        return (UNIT, *TIMES) if self.timed else (UNIT,)

    @staticmethod
    def unit(frames) -> Solutions:
        """The one empty solution: what an empty group pattern matches."""
        return Solutions(frames.constant({UNIT: [True]}, {UNIT: pl.Boolean}), (), frozenset(), frames)

    @staticmethod
    def of(frames, frame, variables, bound=None, timed: bool = False) -> Solutions:
        variables = tuple(variables)
        return Solutions(frame, variables, frozenset(variables if bound is None else bound), frames, timed)

    def but(self, frame, variables=None, bound=None, timed: bool | None = None) -> Solutions:
        """The same solutions' dialect with another frame (and variables, bound, timed)."""
        return Solutions(frame, self.variables if variables is None else tuple(variables),
                         self.bound if bound is None else frozenset(bound), self.frames,
                         self.timed if timed is None else timed)


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
    own = {UNIT: _right_name(UNIT), START: _RIGHT_START, END: _RIGHT_END}
    renamed = {(_right_name(c) if c in loose else own.get(c, c)): c for c in frames.names(right.frame)}
    paired = frames.join(left.frame, frames.select(right.frame, renamed), exact)
    return paired, [(v, _right_name(v)) for v in loose]


def _columns(names) -> dict[str, str]:
    return {n: n for n in names}


def join(left: Solutions, right: Solutions, when: str | None = None) -> Solutions:
    frames = left.frames
    paired, loose = _paired(left, right)
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    merged = frames.compatible(paired, loose)
    timed = left.timed or right.timed
    if when is not None and not (left.timed and right.timed):
        raise SparqlError("an event operator's two sides must each match triples (a VALUES or a sub-query "
                          "alone has no time)")
    if timed:
        merged = frames.rows(merged, _combined(left.timed, right.timed, when))
    hidden = (UNIT, *TIMES) if timed else (UNIT,)
    return left.but(frames.select(merged, _columns([*hidden, *variables])), variables, left.bound | right.bound, timed)


def _combined(left_timed: bool, right_timed: bool, when: str | None):
    """The pairs whose intervals stand as ``when`` asks, each with the interval spanning both."""
    def step(frame: pl.LazyFrame) -> pl.LazyFrame:
        if not right_timed:
            return frame
        if not left_timed:
            return frame.rename({_RIGHT_START: START, _RIGHT_END: END})
        start, end, right_start, right_end = (pl.col(c) for c in (START, END, _RIGHT_START, _RIGHT_END))
        if when == "seq":
            frame = frame.filter(end < right_start)
        elif when == "after":
            frame = frame.filter(right_end < start)
        elif when == "equals":
            frame = frame.filter((start == right_start) & (end == right_end))
        return frame.with_columns(pl.min_horizontal(start, right_start).alias(START),
                                  pl.max_horizontal(end, right_end).alias(END)).drop(_RIGHT_START, _RIGHT_END)
    return step


def left_join(left: Solutions, right: Solutions | Callable[[Solutions], Solutions], condition=None,
              when: str | None = None) -> Solutions:
    """OPTIONAL: the compatible pairs that pass ``condition`` (a function of the joined
    solutions giving their frame with only the pairs that pass), and each left row that has
    none; with ``when``, only pairs whose intervals stand so (EP-SPARQL's OPTIONALSEQ,
    EQUALSOPTIONAL). ``right`` may be a function of the left side's rows as computed (held
    once, numbered with ``ROW`` where the outer join does not do), which gives the optional
    side restricted to what they can join."""
    frames = left.frames
    if condition is None and when is None and not left.timed:
        if callable(right):  # its seed reads the left rows, and so does the join: computed once
            left = left.but(frames.kept(left.frame))
            right = right(left)
        if not right.timed and _shared_bound(left, right):
            return _outer_joined(left, right)
    numbered = left.but(frames.numbered(left.frame, ROW), (ROW, *left.variables), left.bound | {ROW})
    if callable(right):
        right = right(numbered)
    matched = join(numbered, right, when)
    if condition is not None:
        matched = matched.but(condition(matched))
    alone = frames.join(numbered.frame, frames.unique(frames.select(matched.frame, {ROW: ROW})), [ROW], "anti")
    variables = tuple(v for v in matched.variables if v != ROW)
    # a left row alone keeps its own interval (an untimed optional side leaves it as it was)
    frame = frames.concat([frames.select(matched.frame, _columns([*matched.hidden, *variables])),
                           frames.select(alone, _columns([*numbered.hidden, *left.variables]))])
    return matched.but(frames.select(frame, _columns([*matched.hidden, *variables])), variables, left.bound)


def _shared_bound(left: Solutions, right: Solutions) -> bool:
    """Whether the two sides share a variable, and only variables bound in every row of both."""
    shared = [v for v in left.variables if v in right.variables]
    return bool(shared) and all(v in left.bound and v in right.bound for v in shared)


def _outer_joined(left: Solutions, right: Solutions) -> Solutions:
    """OPTIONAL without a condition, where the sides share only variables bound in every row
    (``_shared_bound``): compatible is equal on those, so it is the dialect's left outer
    join, with no row numbers and no second pass for the left rows alone (decision 0066)."""
    frames = left.frames
    shared = [v for v in left.variables if v in right.variables]
    renamed = {(_right_name(c) if c == UNIT else c): c for c in frames.names(right.frame)}
    joined = frames.join(left.frame, frames.select(right.frame, renamed), shared, "left")
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    return left.but(frames.select(joined, _columns([UNIT, *variables])), variables, left.bound)


def minus(left: Solutions, right: Solutions) -> Solutions:
    """MINUS: a left row goes when a right row is compatible with it and shares a bound
    variable with it (18.5); with no variable in common nothing is removed."""
    frames = left.frames
    shared = [v for v in left.variables if v in right.variables]
    if not shared:
        return left
    numbered = frames.numbered(left.frame, ROW)
    keys = left.but(frames.select(numbered, _columns([UNIT, ROW, *shared])), (ROW, *shared), left.bound | {ROW}, False)
    right_keys = right.but(frames.unique(frames.select(right.frame, _columns([UNIT, *shared]))), tuple(shared),
                           timed=False)
    paired, loose = _paired(keys, right_keys)
    # a variable bound on both sides in every row is always shared: then any compatible pair removes
    removed = frames.compatible(paired, loose, sharing=len(loose) == len(shared), merge=False)
    kept = frames.join(numbered, frames.unique(frames.select(removed, {ROW: ROW})), [ROW], "anti")
    return left.but(frames.select(kept, _columns([*left.hidden, *left.variables])))


def union(left: Solutions, right: Solutions) -> Solutions:
    frames = left.frames
    variables = left.variables + tuple(v for v in right.variables if v not in left.variables)
    frame = frames.concat([left.frame, right.frame])
    timed = left.timed or right.timed  # an untimed side's rows have no interval (null)
    hidden = (UNIT, *TIMES) if timed else (UNIT,)
    return left.but(frames.select(frame, _columns([*hidden, *variables])), variables, left.bound & right.bound, timed)


def project(solutions: Solutions, variables) -> Solutions:
    """The solutions over ``variables``; their intervals go (a sub-query's rows are timeless
    to the pattern around it, and DISTINCT above a projection compares the variables only)."""
    variables = tuple(dict.fromkeys(variables))
    frames = solutions.frames
    columns = {UNIT: UNIT, **{v: (v if v in solutions.variables else None) for v in variables}}
    return solutions.but(frames.select(solutions.frame, columns), variables, solutions.bound & frozenset(variables),
                         False)
