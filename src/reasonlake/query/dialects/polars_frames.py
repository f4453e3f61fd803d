"""The driver's dialect of the query plan: multisets of solutions as Polars LazyFrames.

The planner (``planner``) and the operators between solutions (``solutions``, ``paths``)
speak to a dialect through the methods of ``protocol.Frames`` and nothing else; the Spark dialect
(``query/dialects/spark_frames.py``) answers the same ones over Spark DataFrames. Row-wise steps
(FILTER, BIND, ORDER BY's keys, an aggregate's inputs) are Polars functions of a frame
(``rows``), run here on the whole frame and there on each Arrow batch of the executors, so
every expression has one compilation (``expressions``) whichever backend answers.

A join, a path's fixpoint and the answer are bounded (``bound``, decision 0070): a join is
computed when the plan asks for it, by the streaming engine with a limit one row past the
bound, so a join that would pass it stops having made that many rows and no more.
"""
from __future__ import annotations

from typing import Callable

import polars as pl

from reasonlake.query import bound as query_bound
from reasonlake.query.dialects.protocol import Rows

# a seed of at most one key per this many triples: IMaRS 100k, an OPTIONAL after a 1% FILTER
# 0.92 -> 0.66 s seeded; after no FILTER (a key per 3 triples) 0.66 -> 0.91 s
_SEED_SHARE = 16


class PolarsFrames:
    name = "driver"

    def __init__(self, bound: query_bound.Bound | None = None):
        self.bound = bound if bound is not None else query_bound.configured()

    def within(self, bound: query_bound.Bound) -> PolarsFrames:
        """This dialect with the bound of one query."""
        return PolarsFrames(bound)

    def source(self, frame: pl.DataFrame | pl.LazyFrame, timed: bool = False) -> pl.LazyFrame:
        """A frame of subject, predicate, object (N-Triples text), and with ``timed`` the
        occurrences' ``START`` and ``END``, as this dialect's."""
        return frame.lazy() if isinstance(frame, pl.DataFrame) else frame

    # -- making frames ------------------------------------------------------------------------
    def constant(self, columns: dict[str, list], schema: dict[str, pl.DataType]) -> pl.LazyFrame:
        return pl.LazyFrame(columns, schema=schema)

    def names(self, frame: pl.LazyFrame) -> list[str]:
        return frame.collect_schema().names()

    # -- columns ------------------------------------------------------------------------------
    def select(self, frame: pl.LazyFrame, columns: dict[str, str | None]) -> pl.LazyFrame:
        """``{new name: column or None}``: the columns renamed, a None an unbound (null) column."""
        return frame.select([pl.col(c).alias(n) if c is not None else pl.lit(None, pl.String).alias(n)
                             for n, c in columns.items()])

    def flag(self, frame: pl.LazyFrame, name: str) -> pl.LazyFrame:
        """``frame`` with a column ``name`` true in every row."""
        return frame.with_columns(pl.lit(True).alias(name))

    def where_equal(self, frame: pl.LazyFrame, tests: list[tuple[str, str, bool]]) -> pl.LazyFrame:
        """Rows where each ``(column, other, is_column)`` holds: the column equals the constant
        text ``other``, or the column ``other`` when ``is_column``."""
        if not tests:
            return frame
        return frame.filter(pl.all_horizontal([pl.col(c) == (pl.col(o) if is_col else pl.lit(o))
                                               for c, o, is_col in tests]))

    def where_not_in(self, frame: pl.LazyFrame, column: str, values: list[str]) -> pl.LazyFrame:
        return frame.filter(~pl.col(column).is_in(values))

    # -- joins and sets -----------------------------------------------------------------------
    def join(self, left: pl.LazyFrame, right: pl.LazyFrame, on: list[str], how: str = "inner") -> pl.LazyFrame:
        """``how``: inner (a cross product when ``on`` is empty), anti, left. An inner or left
        join is computed now, within the bound (``_bounded_join``); an anti join keeps at most
        the left's rows."""
        if how == "anti":
            return left.join(right, on=on, how=how)
        return self._bounded_join(left.collect(), right.collect(), on, how)

    def _bounded_join(self, left: pl.DataFrame, right: pl.DataFrame, on: list[str], how: str) -> pl.LazyFrame:
        """The join made now, stopped one row past the rows the bound allows (its rows, or
        its bytes at the sides' bytes a row). The streaming engine stops a join under a limit
        once it has made that many rows; the in-memory one makes every row first (a join of
        three 4,000-triple patterns sharing one predicate aborted the process allocating
        them). Made once here, the join is read by the plan around it as a frame: the
        in-memory engine would make it whole as well (IMaRS 300k: the bench's queries
        within the run-to-run spread, decision 0070)."""
        bound = self.bound
        what = _join_named(left, right, on, how)
        width = _row_bytes(left) + _row_bytes(right)
        cross = not on and how == "inner"
        if cross:  # every pair: known before any is made
            rows = left.height * right.height
            bound.check(what, rows, int(rows * width))
        most = bound.rows if not width else max(1, min(bound.rows, int(bound.bytes // width)))
        joined = left.lazy().join(right.lazy(), how="cross") if cross else left.lazy().join(right.lazy(), on=on, how=how)
        out = joined.limit(most + 1).collect(engine="streaming")
        if out.height > most:
            if most == bound.rows:
                raise bound.rows_past(what, f"more than {most:,}")
            raise bound.memory_past(what, f"more than {query_bound.mb_text(bound.mb)} MB "
                                          f"({most + 1:,} rows of about {width:,.0f} bytes)")
        bound.check(what, out.height, out.estimated_size())
        return out.lazy()

    def compatible(self, frame: pl.LazyFrame, pairs: list[tuple[str, str]], sharing: bool = False,
                   merge: bool = True) -> pl.LazyFrame:
        """Rows whose ``(column, right column)`` pairs are compatible (equal where both are
        bound); with ``sharing``, only those where some pair is bound on both sides; with
        ``merge``, each column takes the right one's value where it is unbound and the right
        columns go."""
        if not pairs:
            return frame
        tests = [pl.col(a).is_null() | pl.col(b).is_null() | (pl.col(a) == pl.col(b)) for a, b in pairs]
        keep = pl.all_horizontal(tests)
        if sharing:
            keep = keep & pl.any_horizontal([pl.col(a).is_not_null() & pl.col(b).is_not_null() for a, b in pairs])
        out = frame.filter(keep)
        if merge:
            out = out.with_columns([pl.coalesce(a, b).alias(a) for a, b in pairs]).drop([b for _, b in pairs])
        return out

    def concat(self, frames: list[pl.LazyFrame]) -> pl.LazyFrame:
        """The rows of all, each frame's missing columns unbound."""
        return pl.concat(frames, how="diagonal_relaxed")

    def unique(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        return frame.unique(maintain_order=True)

    def numbered(self, frame: pl.LazyFrame, name: str) -> pl.LazyFrame:
        """``frame`` with a row number, computed once: the plan is read twice after (the rows
        that match, the rows that do not), and a lazy plan may give its rows in another order
        each time it runs (parallel joins, ``unique``), so the numbers would not name one row."""
        return frame.with_row_index(name).collect().lazy()

    def kept(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` computed now, for a plan that reads it many times (a fixpoint's rounds)."""
        return frame.collect().lazy()

    def kept_for_rounds(self, frame: pl.LazyFrame, scanned: bool) -> pl.LazyFrame:
        """``frame`` computed now, for a fixpoint that reads it each round, ``scanned`` (a scan
        of the triples) or not."""
        return self.kept(frame)

    def held(self, frame: pl.LazyFrame) -> tuple[pl.LazyFrame, bool]:
        """A basic graph pattern's filtered start, which Spark holds and counts (``SparkFrames.held``):
        Polars plans the joins over it as they are (and needs no count of it)."""
        return frame, False

    def seed(self, rows: pl.LazyFrame, keys: list[str], triples: pl.LazyFrame) -> pl.LazyFrame | None:
        """The distinct ``keys`` of ``rows`` (computed: they are read by each pattern they
        join), when they are worth joining into the patterns over ``triples``: few of them
        (an OPTIONAL after a selective FILTER). None when there are many, which would keep
        most rows and cost a join more; the rows' count, known already, decides first."""
        limit = triples.select(pl.len()).collect().item() // _SEED_SHARE
        if rows.select(pl.len()).collect().item() > limit:
            return None
        return rows.select(keys).unique().collect().lazy()

    def copied(self, frame: pl.LazyFrame, name: str, source: str | None) -> pl.LazyFrame:
        """``frame`` with the column ``name`` a copy of ``source`` (None: unbound everywhere)."""
        return frame.with_columns((pl.col(source) if source is not None else pl.lit(None, pl.String)).alias(name))

    def fill_false(self, frame: pl.LazyFrame, name: str) -> pl.LazyFrame:
        return frame.with_columns(pl.col(name).fill_null(False))

    # -- row-wise steps and the modifiers -----------------------------------------------------
    def rows(self, frame: pl.LazyFrame, step: Rows) -> pl.LazyFrame:
        return step(frame)

    def counted_groups(self, frame: pl.LazyFrame, keys: list[str], counts, names: list[str]) -> None:
        """None: the driver groups by the compiled aggregates (``planner._AggregateJoin``)."""
        return None

    def filtered(self, frame: pl.LazyFrame, step: Rows, expr, variables, integers: dict[str, str]) -> pl.LazyFrame:
        """The rows that pass a FILTER: ``step`` (its compiled Polars function), as the
        Polars frame is."""
        return step(frame)

    def sort(self, frame: pl.LazyFrame, keys: Rows, names: list[str], descending: list[bool]) -> pl.LazyFrame:
        """Sorted by the key columns ``names`` that ``keys`` adds (unbound first), then without them."""
        return keys(frame).sort(names, descending=descending, nulls_last=False, maintain_order=True).drop(names)

    def slice(self, frame: pl.LazyFrame, start: int, length: int | None) -> pl.LazyFrame:
        return frame.slice(start, length)

    def group(self, frame: pl.LazyFrame, keys: list[str], per_group: Rows) -> pl.LazyFrame:
        """``per_group`` (a grouping of the rows by ``keys``, or of all of them as one group
        when there is none) over the frame."""
        return per_group(frame)

    # -- answers ------------------------------------------------------------------------------
    def collect(self, frame: pl.LazyFrame) -> pl.DataFrame:
        """The answer, one row past the bound at most (a union of joins within it may pass it)."""
        out = frame.limit(self.bound.rows + 1).collect()
        if out.height > self.bound.rows:
            raise self.bound.rows_past("the answer", f"more than {self.bound.rows:,}")
        self.bound.check("the answer", out.height, out.estimated_size())
        return out

    def any_row(self, frame: pl.LazyFrame) -> bool:
        return frame.limit(1).collect().height > 0

    def fixpoint(self, reached: pl.LazyFrame, step: Callable[[pl.LazyFrame], pl.LazyFrame],
                 on: list[str]) -> pl.LazyFrame:
        """``reached`` grown by ``step`` of the rows found last until a round finds none new
        (semi-naive: each round steps only from the newest rows)."""
        reached = reached.collect()
        newest = reached
        while newest.height:
            newest = step(newest.lazy()).unique().join(reached.lazy(), on=on, how="anti").collect()
            reached = pl.concat([reached, newest])
            # a closure over a connected graph is every pair of its nodes
            self.bound.check("a property path's pairs", reached.height, reached.estimated_size())
        return reached.lazy()


def _row_bytes(frame: pl.DataFrame) -> float:
    return frame.estimated_size() / frame.height if frame.height else 0.0


def _join_named(left: pl.DataFrame, right: pl.DataFrame, on: list[str], how: str) -> str:
    """The join as the bound's error names it: its sides' variables, and the ones it joins on."""
    def shown(frame: pl.DataFrame) -> str:
        names = [c.removeprefix("$right.") for c in frame.columns]  # the right's shared ones, renamed
        return " ".join(f"?{n}" for n in names if not n.startswith("$")) or "the empty solution"

    sides = f"{{{shown(left)}}} ({left.height:,} rows) and {{{shown(right)}}} ({right.height:,} rows)"
    if not on:
        return f"the join of {sides}, which share no variable"
    keys = " ".join(f"?{v}" for v in on if not v.startswith("$"))
    return f"the {'optional join' if how == 'left' else 'join'} of {sides}" + (f" on {keys}" if keys else "")
