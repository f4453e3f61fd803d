"""A view's materialization kept in the driver between closes (driver-path views only).

A close on the driver path reads the whole table into the driver, reasons there, and
publishes the changes. The facts it ends with are exactly the table after its publish, so
a job that slides close after close (a multi-close `slide`, a scheduled runner, a
benchmark) keeps them, with the commit they equal, and the next close starts from them
instead of reading the table: no scan, no count, no transfer. They are kept by expiration
pane (``paned_facts``), as the table is partitioned: a close drops the panes that leave
and rewrites only the panes its changes touch. They are used only while the
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

from reasonlake.engine.reason import budget, paned_facts
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.table_cache import latest_commit

# Views whose facts a session keeps (``process_cache``: (table path, declaration
# fingerprint) -> (commit, facts)). Each can hold up to LOCAL_ROWS facts: a process keeps
# the few views it slides, the oldest go first.
_LIMIT = 8


def _key(home: Home, view: str, fingerprint: str) -> tuple:
    return (home.mat_path(view), fingerprint)


def take(home: Home, view: str, fingerprint: str) -> PanedFacts | None:
    """The facts of the table as it is now, by pane, if this process holds them; the
    caller owns them until it calls ``keep``."""
    return _current(home, view, home.cache.resident.pop(_key(home, view, fingerprint), None))


def peek(home: Home, view: str, fingerprint: str, version: int) -> PanedFacts | None:
    """The facts this process keeps of the view, if they are its table at ``version`` and
    that is still the table's latest commit (the caller only reads them)."""
    kept = home.cache.resident.get(_key(home, view, fingerprint))
    return _current(home, view, kept) if kept is not None and kept[0][0] == version else None


def _current(home: Home, view: str, kept) -> PanedFacts | None:
    """The facts of ``kept`` (commit, facts) while that commit is still the table's latest."""
    if kept is None:
        return None
    commit, facts = kept
    return facts if latest_commit(home.spark, home.mat_path(view)) == commit else None


def load(home: Home, view: str) -> PanedFacts | None:
    """The table's facts at its latest commit, by pane, read in this process by delta-rs;
    None where Spark must read them (a home this process cannot read, a table past the
    driver's budget or one delta-rs refuses, no table yet)."""
    # imported when called: it loads pyarrow, rdflib
    from reasonlake.engine.store import driver_reads

    commit = latest_commit(home.spark, home.mat_path(view))
    if commit is None or not budget.LOCAL_ROWS:
        return None
    found = driver_reads.query(home.spark, {"mat": (home.mat_path(view), commit[0])},
                               f"SELECT s, p, o, origin, rule, exp_pane FROM mat LIMIT {budget.LOCAL_ROWS + 1}")
    if found is None or not budget.enabled(max(found.num_rows, 1)):
        return None
    facts = pl.from_arrow(found).cast({**paned_facts.SCHEMA, "exp_pane": pl.Int64})
    return PanedFacts.of(facts, pl.col("exp_pane"))


def keep(home: Home, view: str, fingerprint: str, facts: PanedFacts) -> None:
    """Remember ``facts`` as the table's content at its latest commit (just written by us)."""
    commit = latest_commit(home.spark, home.mat_path(view))
    key, kept = _key(home, view, fingerprint), home.cache.resident
    kept.pop(key, None)
    if commit is None:  # the session cannot tell commits apart: nothing can be trusted later
        return
    if len(kept) >= _LIMIT:
        kept.pop(next(iter(kept)))
    kept[key] = (commit, facts)
