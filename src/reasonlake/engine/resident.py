"""A view's materialization kept in the driver between closes (driver-path views only).

A close on the driver path reads the whole table into the driver, reasons there, and
publishes the changes. The facts it ends with are exactly the table after its publish, so
a job that slides close after close (a multi-close `slide`, a scheduled runner, a
benchmark) keeps them, with the commit they equal, and the next close starts from them
instead of reading the table: no scan, no count, no transfer. They are used only while the
table's latest commit is still that one (``table_cache``): any other writer (a rebuild in
another process, a restore, a repair job) makes the next close read the table again.

A view has one writer at a time (as for every step of the slide job): between our own
publish and the look-up of the commit it made, nobody else commits to the table.
"""
from __future__ import annotations

from reasonlake.engine import table_cache
from reasonlake.engine.home import Home


def _name(fingerprint: str) -> tuple:
    return ("facts", fingerprint)  # another declaration compiles other rules: other facts


def take(home: Home, view: str, fingerprint: str) -> dict | None:
    """The facts of the table as it is now, (s, p, o) -> (origin, rule), if this process
    holds them; the caller owns (and changes) them until it calls ``keep``."""
    path = home.mat_path(view)
    kept = table_cache.kept(home.spark, path, _name(fingerprint))
    if kept is None:
        return None
    table_cache.forget(home.spark, path, _name(fingerprint))
    commit, facts = kept
    return facts if table_cache.latest_commit(home.spark, path) == commit else None


def keep(home: Home, view: str, fingerprint: str, facts: dict) -> None:
    """Remember ``facts`` as the table's content at its latest commit (just written by us)."""
    path = home.mat_path(view)
    table_cache.remember(home.spark, path, _name(fingerprint), table_cache.latest_commit(home.spark, path), facts)


def expire(facts: dict, opens: int) -> int:
    """Drop the facts that left the window: origin at or before the window's opening
    (``Window.expiration_pane(origin) <= close`` for a close on the grid). Returns how many."""
    gone = [key for key, (origin, _) in facts.items() if origin <= opens]
    for key in gone:
        del facts[key]
    return len(gone)
