"""A view's materialization kept in the driver between closes (driver-path views only).

A close on the driver path reads the whole table into the driver, reasons there, and
publishes the changes. The facts it ends with are exactly the table after its publish, so
a job that slides close after close (a multi-close `slide`, a scheduled runner, a
benchmark) keeps them, with the commit they equal, and the next close starts from them
instead of reading the table: no scan, no count, no transfer. They are used only while the
table's latest commit is still that one (``table_cache.latest_commit``): any other writer
(a rebuild in another process, a restore, a repair job) makes the next close read the
table again.

A process that holds nothing yet (a fresh `reasonlake slide`, the first batch of a runner)
reads them from the table once, in the driver, where the home lets this process read the
table's files itself and the table fits the driver's budget (``load``): the close then runs
in the driver from its first step, with no Spark job to expire, read or publish.

A view has one writer at a time (as for every step of the slide job): between our own
publish and the look-up of the commit it made, nobody else commits to the table.
"""
from __future__ import annotations

import polars as pl

from reasonlake.engine.store.home import Home
from reasonlake.engine.store.table_cache import latest_commit

# Views whose facts a session keeps (``process_cache``: (table path, declaration
# fingerprint) -> (commit, facts)). Each can hold up to LOCAL_ROWS facts: a process keeps
# the few views it slides, the oldest go first.
_LIMIT = 8


def _key(home: Home, view: str, fingerprint: str) -> tuple:
    return (home.mat_path(view), fingerprint)


def take(home: Home, view: str, fingerprint: str) -> pl.DataFrame | None:
    """The facts of the table as it is now (s, p, o, origin, rule), if this process holds
    them; the caller owns them until it calls ``keep``."""
    kept = home.cache.resident.pop(_key(home, view, fingerprint), None)
    if kept is None:
        return None
    commit, facts = kept
    return facts if latest_commit(home.spark, home.mat_path(view)) == commit else None


def load(home: Home, view: str) -> pl.DataFrame | None:
    """The table's facts at its latest commit, read in this process by delta-rs; None where
    Spark must read them (a home this process cannot read, a table past the driver's budget
    or one delta-rs refuses, no table yet)."""
    from reasonlake.engine.reason import budget
    from reasonlake.engine.store import driver_reads

    commit = latest_commit(home.spark, home.mat_path(view))
    if commit is None or not budget.LOCAL_ROWS:
        return None
    found = driver_reads.query(home.spark, {"mat": (home.mat_path(view), commit[0])},
                               f"SELECT s, p, o, origin, rule FROM mat LIMIT {budget.LOCAL_ROWS + 1}")
    if found is None or not budget.enabled(max(found.num_rows, 1)):
        return None
    return pl.from_arrow(found).cast({"s": pl.Int64, "p": pl.Int64, "o": pl.Int64, "origin": pl.Int64, "rule": pl.String})


def keep(home: Home, view: str, fingerprint: str, facts: pl.DataFrame) -> None:
    """Remember ``facts`` as the table's content at its latest commit (just written by us)."""
    commit = latest_commit(home.spark, home.mat_path(view))
    key, kept = _key(home, view, fingerprint), home.cache.resident
    kept.pop(key, None)
    if commit is None:  # the session cannot tell commits apart: nothing can be trusted later
        return
    if len(kept) >= _LIMIT:
        kept.pop(next(iter(kept)))
    kept[key] = (commit, facts)


def expire(facts: pl.DataFrame, opens: int) -> tuple[pl.DataFrame, int]:
    """The facts still in the window, and how many left: those with origin at or before
    the window's opening (``Window.expiration_pane(origin) <= close`` for a close on the grid)."""
    kept = facts.filter(pl.col("origin") > opens)
    return kept, facts.height - kept.height
