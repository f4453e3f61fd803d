"""The driver's facts indexed by subject and by object, kept from close to close.

A close's rounds look facts up by a term: the facts whose subject is one of Δ's objects
(a transitive chain, a join), the known facts with a candidate's subject (does it beat
them?). Over one frame each look-up is a scan of the window, and at 21M facts the rounds of
a 10k-item close took 0.9-1.0 s of its 1.1 s. Here each look-up reads a few rows of each
sorted run (``sorted_keys``).

The index is a few *runs* per column, each a frame sorted by that column (Differential
Dataflow's arrangements, kept as a log-structured merge): the first made from the window's
facts, then one per close holding that close's changes. A fact's rows are all found
together (a look-up by subject or object finds every row of a key), and a close adds rows
but never removes them:
- a renewed fact has a row in an older run and one in a newer run: the newest run's row is
  the fact as it is (a change is always a newer row of the fact);
- an expired fact's newest row lies in a pane that left the window (a renewal only raises
  an origin, and expiry drops whole panes): the look-up drops rows of panes at or before
  the last expiry.
A driver close removes facts only by expiry and renewal (a repair view's close runs on
Spark), so these two rules give exactly the facts held. A run whose every pane has left the
window is dropped whole; past ``MAX_RUNS`` runs, the two neighbours with the fewest rows
between them are merged (stale rows dropped in the merge). Where a close changes a large
share of the window (a window of three slides), its runs leave with their panes before any
merge; where it changes a small share (a window of a thousand slides), small runs merge
with small runs, and a row is sorted again a few times over its life, not at every close.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from reasonlake.engine.reason.sorted_keys import SortedKeys
from reasonlake.engine.store.schemas import FACT_COLUMNS as COLUMNS
from reasonlake.engine.store.schemas import FACT_FRAME_SCHEMA as FACT_SCHEMA
from reasonlake.engine.store.schemas import KEY

PANE = "_pane"
INDEXED = ("s", "o")
MAX_RUNS = 8


@dataclass(frozen=True)
class Run:
    """Facts sorted by one column, with that column's ids ready for look-ups."""
    rows: pl.DataFrame
    keys: SortedKeys
    newest_pane: int  # a scan of a 2M-row run at every close's expiry cost 0.5 ms

    @classmethod
    def sorted_by(cls, column: str, rows: pl.DataFrame) -> Run:
        """``rows`` (never empty) sorted by ``column``."""
        rows = rows.sort(column).rechunk()
        # the column's own buffer (one chunk, and ids have no nulls): no copy
        return cls(rows, SortedKeys(rows.get_column(column).to_numpy()), rows.get_column(PANE).max())

    @property
    def height(self) -> int:
        return self.rows.height


@dataclass(frozen=True)
class FactIndex:
    runs: dict[str, tuple[Run, ...]]  # column -> runs sorted by it, oldest first
    expired_upto: int | None  # rows of panes at or before this are gone

    @classmethod
    def of(cls, rows: pl.DataFrame) -> FactIndex:
        """From the window's facts (s, p, o, origin, rule, and their pane as ``_pane``)."""
        return cls({column: (Run.sorted_by(column, rows),) if rows.height else () for column in INDEXED},
                   None)

    def expire(self, upto: int) -> FactIndex:
        upto = upto if self.expired_upto is None else max(upto, self.expired_upto)
        # a run whose newest pane has left holds nothing any more
        return FactIndex({column: tuple(run for run in runs if run.newest_pane > upto)
                          for column, runs in self.runs.items()}, upto)

    def changed(self, changes: pl.DataFrame) -> FactIndex:
        """With a close's changes (s, p, o, origin, rule, ``_pane``: the facts as they now are)."""
        if changes.is_empty():
            return self
        runs = {}
        for column in INDEXED:
            stack = [*self.runs[column], Run.sorted_by(column, changes)]
            while len(stack) > MAX_RUNS:
                at = min(range(len(stack) - 1), key=lambda i: stack[i].height + stack[i + 1].height)
                merged = self._live(pl.concat([stack[at + 1].rows, stack[at].rows], how="vertical"))
                stack[at:at + 2] = [Run.sorted_by(column, merged)] if merged.height else []
            runs[column] = tuple(stack)
        return FactIndex(runs, self.expired_upto)

    def _live(self, rows: pl.DataFrame) -> pl.DataFrame:
        """``rows``, newest first, less the stale: one row a fact, not expired."""
        rows = rows.unique(KEY, keep="first", maintain_order=True)
        return rows if self.expired_upto is None else rows.filter(pl.col(PANE) > self.expired_upto)

    def touching(self, column: str, values: pl.Series) -> pl.DataFrame:
        """The facts held whose ``column`` (s or o) is one of ``values`` (s, p, o, origin, rule)."""
        wanted = _distinct(values)
        found = []
        if len(wanted):
            for run in reversed(self.runs[column]):  # newest first
                at = run.keys.rows(wanted)
                if len(at):
                    found.append(run.rows[at])
        if not found:
            return pl.DataFrame(schema=FACT_SCHEMA)
        return self._live(pl.concat(found, how="vertical")).select(COLUMNS)


def _distinct(values: pl.Series) -> np.ndarray:
    """The ids in ``values``, once each, ascending (numpy's ``unique`` took five times as long)."""
    ids = np.sort(values.drop_nulls().to_numpy().astype(np.int64, copy=False))
    return ids[np.concatenate(([True], ids[1:] != ids[:-1]))] if len(ids) else ids
