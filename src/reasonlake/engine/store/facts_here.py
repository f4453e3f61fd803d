"""The live facts of a view's table read by this process (delta-rs, DataFusion), for a
close whose table the driver does not hold, on a home whose files this process reads
(decision 0059).

A close too large for the driver's resident state reads the table for three things: how
many facts it holds (to choose where its rounds run), the facts its change reaches (the
rounds' look-ups, ``neighbourhood``) and the panes its changes touch (written again by the
driver). Through Spark that was a read of the whole table with a local checkpoint, a
semi-join collected through Arrow, and a second collect: 2.1, 2.2 and 2.9 s of a
200k-item close over a 1.5M-fact table on 2 cores. Read here: the count from a query,
the look-ups as one streamed scan filtered as it goes (0.15 s for 1.5M facts, held a
chunk at a time, so a table larger than the driver streams through it), the panes pruned
by their partition. Every read is of the one version the close opened (the close holds
the view's lease: nothing else writes it).

``at_close`` gives None where this process does not read the home's files (object storage, a
session on another machine, ``REASONLAKE_SMALL_TABLES=0``) or delta-rs refuses the table:
the close then reads through Spark.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from reasonlake.engine.store import delta_rs_reads
from reasonlake.engine.store.schemas import FACT_FRAME_SCHEMA as SCHEMA

COLUMNS = ", ".join(SCHEMA)

# Rows a streamed scan gathers before it hands them on: a filter over a chunk builds its
# hash set of looked-up terms once (one per Arrow batch took 1 s a scan, one per chunk
# 0.1 s), and a chunk of this many facts takes about 40 MB.
CHUNK_ROWS = 1_000_000


@dataclass
class FactsHere:
    """The facts of a view's table live after ``close`` (``exp_pane > close``), at the
    table's version when opened; ``rows``: how many."""

    table: object  # the table as delta-rs opened it, at that version
    close: int
    rows: int

    def _batches(self, where: str):
        return delta_rs_reads.stream({"mat": self.table}, f"SELECT {COLUMNS} FROM mat WHERE {where}")

    def chunks(self) -> Iterator[pl.DataFrame]:
        """Every live fact, a chunk of about ``CHUNK_ROWS`` at a time."""
        held, rows = [], 0
        for batch in self._batches(f"exp_pane > {self.close}"):
            held.append(batch)
            rows += batch.num_rows
            if rows >= CHUNK_ROWS:
                yield _frame(held)
                held, rows = [], 0
        if held:
            yield _frame(held)

    def all(self, limit: int) -> pl.DataFrame | None:
        """Every live fact, or None past ``limit`` rows."""
        if self.rows > limit:
            return None
        return pl.concat([pl.DataFrame(schema=SCHEMA), *self.chunks()])

    def panes(self, panes: list[int], limit: int) -> pl.DataFrame | None:
        """Every fact of ``panes`` (live ones: the table's partitions, the others pruned), or
        None past ``limit`` rows."""
        if not panes:
            return pl.DataFrame(schema=SCHEMA)
        listed = ", ".join(str(int(p)) for p in panes)
        held, rows = [], 0
        for batch in self._batches(f"exp_pane IN ({listed})"):
            held.append(batch)
            rows += batch.num_rows
            if rows > limit:
                return None
        return _frame(held)


def at_close(home, view: str, close: int) -> FactsHere | None:
    """The view's live facts after ``close`` as this process reads them, or None where it
    does not (the close reads through Spark)."""
    folder = home.access.folder(home.mat_path(view))
    if folder is None:
        return None
    table = delta_rs_reads.open_table(folder)
    if table is None:
        return None
    try:
        counted = next(iter(delta_rs_reads.stream(
            {"mat": table}, f"SELECT count(*) AS n FROM mat WHERE exp_pane > {int(close)}")))
    except Exception:  # a feature delta-rs reads the log of but not the files: Spark reads
        return None
    return FactsHere(table, int(close), int(counted.column(0)[0].as_py()))


def _frame(batches) -> pl.DataFrame:
    if not batches:
        return pl.DataFrame(schema=SCHEMA)

    return pl.from_arrow(pa.Table.from_batches(batches)).cast(SCHEMA)
