"""A view's content at a close, for SPARQL queries (``reasonlake.query``): subject,
predicate, object in N-Triples text, each triple once, anonymous terms left out as
``export`` leaves them out, in the dialect of the backend that answers (decision 0045).

Where ``export`` reads in this process (``driver_reads.view_rows``: a local home, tables
within ``REASONLAKE_DRIVER_READ_MB``) the triples are a Polars frame and the driver
answers; elsewhere (a view too large for the driver, a home on object storage, a Spark
Connect server that cannot see the files) they stay a Spark frame, decoded on the
executors, and Spark answers (``spark_frames``): the view is never collected. The rows are
``view_decoding``'s either way.

A process keeps the triples it last read of each view (``ProcessCache.query_views``), by
the published version whose content they are and the close: a version's content never
changes, so a warm process (the server, the runner, a notebook) answers the next query at
that close without reading the view again.
"""
from __future__ import annotations

import polars as pl

from reasonlake.engine import read
from reasonlake.engine.store.home import Home

COLUMNS = ["subject", "predicate", "object"]


class ViewTriples:
    """The triples a query reads, and the dialect that answers over them."""

    def __init__(self, frame, frames=None):
        self.frame = frame
        self.frames = frames  # None: the driver's (Polars)
        self._count = None  # Spark's count, asked once

    @property
    def backend(self) -> str:
        return "driver" if self.frames is None else self.frames.name

    @property
    def height(self) -> int:
        if self.frames is None:
            return self.frame.height
        if self._count is None:
            self._count = self.frame.count()
        return self._count

    def answer(self, text: str):
        from reasonlake.query import run

        return run(self.frame, text, self.frames, distinct=True)  # read as a set (``_read``)


def triples(home: Home, view: str, close: int | None = None, version: int | None = None) -> tuple[ViewTriples, int]:
    """The view's triples at a close or published version, and the close read."""
    record, at, latest = read.picked(home, view, close, version)
    return _kept(home, view, record.version, at,
                 lambda: _read(home, view, read.version_read(home, view, record, latest), at)), at


def triples_at(home: Home, view: str, version: int, at: int) -> ViewTriples:
    """The view's triples live at close ``at`` in its table's ``version``, whether or not a
    close record names that version yet (a close answers its registered queries before it
    records itself)."""
    return _kept(home, view, version, at, lambda: _read(home, view, version, at))


def _kept(home: Home, view: str, version: int, at: int, read_them) -> ViewTriples:
    """The triples of ``version`` at ``at`` as this process last read them, else read now
    (and kept in place of the view's earlier ones). The view's definition is part of the
    key (a view made again under its name starts its versions again), and so is the driver's
    budget, which decides which backend reads."""
    from reasonlake.engine.store import driver_reads

    key = (home.view(view).fingerprint(), version, at, driver_reads.limit_bytes())
    path = home.mat_path(view)
    found = home.cache.query_views.get(path)
    if found is not None and found[0] == key:
        return found[1]
    triples = read_them()
    home.cache.query_views[path] = (key, triples)
    return triples


def _read(home: Home, view: str, version: int | None, at: int) -> ViewTriples:
    from reasonlake.engine.spark_frames import SparkFrames
    from reasonlake.engine.store import driver_reads
    from reasonlake.engine.store import view_decoding as decoding

    found = driver_reads.view_rows(home, view, version, at, decoding.term_columns())
    if found is not None:
        frame = pl.from_arrow(found)
        return ViewTriples(frame.select(pl.col(c).cast(pl.String) for c in COLUMNS).unique())
    decoded = read.decode_facts(home, view, read.facts_of_version(home, view, version, at)).select(*COLUMNS)
    # read by every triple pattern of every query at this close: decoded once, on the executors
    return ViewTriples(decoded.distinct().localCheckpoint(eager=False), SparkFrames(home.spark))
