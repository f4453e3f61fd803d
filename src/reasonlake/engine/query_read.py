"""A view's content at a close as a Polars frame of N-Triples text, for SPARQL queries
(``reasonlake.query``): subject, predicate, object, each triple once, anonymous terms left
out as ``export`` leaves them out.

Read by delta-rs in this process where ``export`` reads so (``driver_reads.view_rows``:
a local home, tables small enough), else through Spark and collected through Arrow; the
rows are ``view_decoding``'s either way.
"""
from __future__ import annotations

import polars as pl

from reasonlake.engine import read
from reasonlake.engine.store.home import Home

COLUMNS = ["subject", "predicate", "object"]


def triples(home: Home, view: str, close: int | None = None, version: int | None = None) -> tuple[pl.DataFrame, int]:
    """The view's triples at a close or published version, and the close read."""
    record, at, latest = read.picked(home, view, close, version)
    return triples_at(home, view, read.version_read(home, view, record, latest), at), at


def triples_at(home: Home, view: str, version: int | None, at: int) -> pl.DataFrame:
    """The view's triples live at close ``at`` in its table's ``version`` (None: the latest),
    whether or not a close record names that version yet (a close answers its registered
    queries before it records itself)."""
    from reasonlake.engine import arrow_bridge
    from reasonlake.engine.store import driver_reads
    from reasonlake.engine.store import view_decoding as decoding

    found = driver_reads.view_rows(home, view, version, at, decoding.term_columns())
    if found is not None:
        frame = pl.from_arrow(found)
    else:
        decoded = read.decode_facts(home, view, read.facts_of_version(home, view, version, at))
        frame = arrow_bridge.from_spark(decoded, COLUMNS)
    return frame.select(pl.col(c).cast(pl.String) for c in COLUMNS).unique()
