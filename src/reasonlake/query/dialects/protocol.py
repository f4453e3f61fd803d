"""What a dialect of the query plan answers: the contract between the planner and a backend.

The planner (``planner``) and the operators between solutions (``solutions``, ``paths``,
``events``) speak to a dialect through these methods and nothing else. A frame is a
multiset of solutions: one String column per variable (N-Triples text, null for unbound),
plus the hidden columns the plan adds (flags, row numbers, integer companions of counts).
Two dialects answer it: the driver's (``polars_frames.PolarsFrames``, Polars LazyFrames) and
Spark's (``spark_frames.SparkFrames``, Spark DataFrames). ``tests/query/dialects`` runs one
conformance suite against both.

Row-wise work (FILTER, BIND, ORDER BY's keys, an aggregate's inputs, a group's aggregates)
is a Polars function of a frame (``Rows``), compiled once (``expressions``): the driver runs
it on the whole frame, Spark on each Arrow batch of its executors. So SPARQL's value rules
are written once, whichever dialect answers; Spark may decide a FILTER with its own
expressions first (``spark_conditions``), and leaves to the Polars function every row those
do not decide.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol, TypeVar, runtime_checkable

import polars as pl

from reasonlake.query import bound as query_bound

# hidden columns of a frame: SPARQL variable names cannot hold '$'
UNIT = "$unit"  # a group of no GROUP BY, a solution of no variable
ROW = "$row"  # a row's number (``numbered``)
START, END = "$start", "$end"  # an event occurrence's interval (``source(timed=True)``)
TIMES = (START, END)

Frame = TypeVar("Frame")
Rows = Callable[[pl.LazyFrame], pl.LazyFrame]


@runtime_checkable
class Frames(Protocol[Frame]):
    """A backend's frames of solutions, each method one operator of the plan."""

    name: str  # "driver" or "spark": what a query's answer says ran it
    bound: query_bound.Bound  # the rows and bytes one query may hold (decision 0070)

    def within(self, bound: query_bound.Bound) -> Frames[Frame]:
        """This dialect with the bound of one query."""

    def source(self, frame: Any, timed: bool = False) -> Frame:
        """A frame of ``subject``, ``predicate``, ``object`` (N-Triples text), and with
        ``timed`` the occurrences' ``START`` and ``END``, as this dialect's."""

    # -- making frames --------------------------------------------------------------------
    def constant(self, columns: dict[str, list], schema: dict[str, pl.DataType]) -> Frame:
        """A frame of the given columns' values (``schema``: each column's Polars type)."""

    def names(self, frame: Frame) -> list[str]:
        """The frame's columns, hidden ones of the dialect's own (Spark's rank) left out."""

    # -- columns --------------------------------------------------------------------------
    def select(self, frame: Frame, columns: dict[str, str | None]) -> Frame:
        """``{new name: column or None}``: the columns renamed, a None an unbound column."""

    def flag(self, frame: Frame, name: str) -> Frame:
        """``frame`` with a column ``name`` true in every row."""

    def where_equal(self, frame: Frame, tests: list[tuple[str, str, bool]]) -> Frame:
        """Rows where each ``(column, other, is_column)`` holds: the column equals the
        constant text ``other``, or the column ``other`` when ``is_column``."""

    def where_not_in(self, frame: Frame, column: str, values: list[str]) -> Frame:
        """Rows whose ``column`` is none of ``values``."""

    def copied(self, frame: Frame, name: str, source: str | None) -> Frame:
        """``frame`` with the column ``name`` a copy of ``source`` (None: unbound everywhere)."""

    def fill_false(self, frame: Frame, name: str) -> Frame:
        """``frame`` with the unbound values of the boolean column ``name`` false."""

    # -- joins and sets -------------------------------------------------------------------
    def join(self, left: Frame, right: Frame, on: list[str], how: str = "inner") -> Frame:
        """``how``: inner (a cross product when ``on`` is empty), anti, left; an inner or
        left join within the bound."""

    def compatible(self, frame: Frame, pairs: list[tuple[str, str]], sharing: bool = False,
                   merge: bool = True) -> Frame:
        """Rows whose ``(column, right column)`` pairs are compatible (equal where both are
        bound); with ``sharing``, only those where some pair is bound on both sides; with
        ``merge``, each column takes the right one's value where it is unbound and the right
        columns go."""

    def concat(self, frames: list[Frame]) -> Frame:
        """The rows of all, each frame's missing columns unbound."""

    def unique(self, frame: Frame) -> Frame:
        """Each distinct row once (an ordered frame keeps its order)."""

    def numbered(self, frame: Frame, name: str) -> Frame:
        """``frame`` with a column ``name`` numbering its rows apart, the same each time the
        frame is read after."""

    def kept(self, frame: Frame) -> Frame:
        """``frame`` computed now, for a plan that reads it many times."""

    def kept_for_rounds(self, frame: Frame, scanned: bool) -> Frame:
        """``frame`` computed now, for a fixpoint that reads it each round, ``scanned`` (a
        scan of the triples) or not."""

    def held(self, frame: Frame) -> tuple[Frame, bool]:
        """A basic graph pattern's filtered start, and whether the dialect holds and counts
        it (so the joins over it may broadcast it)."""

    def seed(self, rows: Frame, keys: list[str], triples: Frame) -> Frame | None:
        """The distinct ``keys`` of ``rows``, to join into the patterns over ``triples`` (an
        OPTIONAL after a selective FILTER); None where the dialect judges them too many to be
        worth a join (the driver does, past one key per 16 triples; Spark seeds always)."""

    # -- row-wise steps and the modifiers -------------------------------------------------
    def rows(self, frame: Frame, step: Rows) -> Frame:
        """``step`` applied to the frame's rows."""

    def filtered(self, frame: Frame, step: Rows, expr: Any, variables: Any, integers: dict[str, str]) -> Frame:
        """The rows that pass a FILTER: ``step`` its compiled Polars function, ``expr`` its
        parsed expression (which a dialect may decide with its own), ``integers`` the
        columns holding a variable's integer value beside its text."""

    def sort(self, frame: Frame, keys: Rows, names: list[str], descending: list[bool]) -> Frame:
        """Sorted by the key columns ``names`` that ``keys`` adds (unbound first), then
        without them."""

    def slice(self, frame: Frame, start: int, length: int | None) -> Frame:
        """The rows from ``start`` (in the frame's order), ``length`` of them or all."""

    def group(self, frame: Frame, keys: list[str], per_group: Rows) -> Frame:
        """``per_group`` over each group of rows by ``keys`` (all rows one group when
        there is none)."""

    def counted_groups(self, frame: Frame, keys: list[str], counts: Any, names: list[str]) -> Frame | None:
        """The groups' COUNTs computed by the dialect itself, or None: the plan then groups
        with the compiled aggregates (``group``)."""

    # -- answers --------------------------------------------------------------------------
    def collect(self, frame: Frame) -> pl.DataFrame:
        """The answer as a Polars frame in the frame's order, one row past the bound at
        most (past it: ``QueryBoundError``)."""

    def any_row(self, frame: Frame) -> bool:
        """Whether the frame has a row."""

    def fixpoint(self, reached: Frame, step: Callable[[Frame], Frame], on: list[str]) -> Frame:
        """``reached`` grown by ``step`` of the rows found last until a round finds none new
        (semi-naive), each row once."""
