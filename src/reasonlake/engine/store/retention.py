"""Retention: how long a view's closes stay readable, and the VACUUM that holds it to that.

Every close rewrites a few panes of the view's table, so without VACUUM its storage grows
with every close for ever. ``vacuum`` sets the view's retention (its ``retain`` field, or
Delta's default of 7 days) as the tables' file and log retention, then vacuums them:
afterwards a close is readable (``export --close``, ``violations --close``) only while the
table version it published still has its files.

Which closes stay readable is read from the table's own history, not kept apart: the last
VACUUM's time less its retention is the horizon, and a version is readable when the
version after it (the one that removed what it held) was written after that horizon, or
when it is the latest.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from reasonlake.engine.store import delta_sql, session, state, table_log
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.table_cache import latest_commit
from reasonlake.errors import CloseError
from reasonlake.plan.durations import format_time
from reasonlake.spark import classic

DEFAULT_RETAIN_MS = 7 * 86_400_000  # Delta's own default for removed files
# Delta refuses a VACUUM below its default retention unless this check is off: a reader
# still on an older version could lose its files. A view that asks for less has said so.
_CHECK = "spark.databricks.delta.retentionDurationCheck.enabled"
# Which closes stay readable is read from the VACUUM commits in the history, which Delta
# writes by default only where its log store is not S3's (decision 0038): asked for always.
_LOGGED = "spark.databricks.delta.vacuum.logging.enabled"
_LISTING = "spark.sql.sources.parallelPartitionDiscovery.parallelism"


@dataclass(frozen=True)
class Vacuumed:
    view: str
    retain_ms: int
    tables: int  # the view's tables vacuumed (materialization, violations, repair log)


def view_tables(home: Home, view: str) -> list[str]:
    """The paths of a view's Delta tables."""
    # imported when called: it loads pyspark (the JVM), pyarrow, rdflib
    from reasonlake.engine.store import readable_copy
    from reasonlake.engine.store import violations_table as violations

    paths = [home.mat_path(view), violations.path(home, view), home.repairs_path(view),
             home.removed_path(view), readable_copy.path(home, view)]
    return [p for p in paths if table_log.is_delta(home.spark, p)]


def vacuum(home: Home, view: str, retain_ms: int | None = None) -> Vacuumed:
    """Set the view's retention on its tables and vacuum them (then ``catalog.after_vacuum``
    re-points the view's names)."""
    decl = home.view(view)
    retain = retain_ms if retain_ms is not None else (decl.retain if decl.retain is not None else DEFAULT_RETAIN_MS)
    spark = home.spark
    seconds = max(retain // 1000, 0)
    wanted = {"delta.deletedFileRetentionDuration": f"interval {seconds} seconds",
              "delta.logRetentionDuration": f"interval {max(seconds, 86_400)} seconds"}
    paths = view_tables(home, view)
    settings = {_LOGGED: "true", _LISTING: str(_listing_tasks(spark))}
    if retain < DEFAULT_RETAIN_MS:
        settings[_CHECK] = "false"
    with session.settings_for_a_while(spark, settings):
        for path in paths:
            have = delta_sql.properties(spark, path)
            if any(have.get(k) != v for k, v in wanted.items()):  # no commit when already set
                props = ", ".join(f"'{k}' = '{v}'" for k, v in wanted.items())
                spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ({props})")
            delta_sql.vacuum(spark, path, retain / 3_600_000)
    return Vacuumed(view, retain, len(paths))


def _listing_tasks(spark) -> int:
    """Tasks for VACUUM's listing of a table's folders: a few per core of the session (at
    least 8). Delta lists them in one Spark job of ``_LISTING`` tasks, 10000 by default,
    nearly all empty for a view's table (a folder per pane): 10000 tasks a table cost a
    vacuum 40 s on two cores, where 8 take half a second."""
    # a Spark Connect session cannot tell: its setting, if any
    cores = classic.default_parallelism(spark) or int(spark.conf.get("spark.default.parallelism", "2") or 2)
    return max(8, 4 * cores)


# Commits that change no data: reading the latest snapshot after them reads what the
# version before them held.
_MAINTENANCE = ("VACUUM START", "VACUUM END", "SET TBLPROPERTIES")


def _ms(moment) -> float:
    return moment.timestamp() * 1000


def pinned(home: Home, path: str, version: int) -> int | None:
    """The version to read a table at for what it held at ``version``: None (the latest
    snapshot) when only maintenance commits came after it. Delta refuses time travel to a
    version older than the table's file retention even when its files are there, so the
    latest close stays readable after a vacuum only when read as the latest snapshot."""
    commit = latest_commit(home.spark, path)
    if commit is not None and commit[0] == version:
        return None
    latest = commit[0] if commit is not None else None
    rows = table_log.history(home.spark, path, ["version", "operation"], (latest - version) if latest is not None else None)
    later = [r for r in rows if r.version > version]
    return None if all(r.operation in _MAINTENANCE for r in later) else version


def readable_versions(home: Home, view: str) -> set[int] | None:
    """The versions of the view's table that can still be read; None: all of them (it was
    never vacuumed and no retention was set on it)."""
    path = home.mat_path(view)
    rows = table_log.history(home.spark, path, ["version", "timestamp", "operation", "operationParameters"])
    changes = sorted((r.version, _ms(r.timestamp)) for r in rows if r.operation not in _MAINTENANCE)
    vacuums = [r for r in rows if r.operation == "VACUUM START"]
    if not vacuums or not changes:
        return None
    # Delta reads a version only within the table's file retention of now, and a vacuum
    # removed the files that a later commit had replaced before its horizon.
    retain = _retention_ms(delta_sql.properties(home.spark, path))
    last = max(vacuums, key=lambda r: r.version)
    params = last.operationParameters or {}
    horizon = _ms(last.timestamp) - int(params.get("specifiedRetentionMillis") or retain)
    now = time.time() * 1000
    readable = set()
    for (version, written), after in zip(changes, [*changes[1:], None]):
        if after is None or (after[1] >= horizon and written >= now - retain):
            readable.add(version)
    return readable


def _retention_ms(properties: dict) -> int:
    text = properties.get("delta.deletedFileRetentionDuration")
    match = re.fullmatch(r"interval\s+(\d+)\s+(second|minute|hour|day|week)s?", (text or "").strip(), re.I)
    if not match:
        return DEFAULT_RETAIN_MS
    unit = {"second": 1000, "minute": 60_000, "hour": 3_600_000, "day": 86_400_000, "week": 604_800_000}
    return int(match.group(1)) * unit[match.group(2).lower()]


def check_readable(home: Home, view: str, version: int, close: int) -> None:
    """Raise CloseError when a vacuum removed the files of the view's table at ``version``."""
    readable = readable_versions(home, view)
    if readable is None or version in readable:
        return
    raise unreadable(home, view, close, readable)


def unreadable(home: Home, view: str, close: int, readable: set[int]):
    """The CloseError for a close whose version is not in ``readable``."""
    kept = [r.close for r in state.lineage(home, view) if r.version in readable]
    oldest = f"the oldest readable close is {format_time(min(kept))}" if kept else "no earlier close is readable"
    return CloseError(
        f"close {format_time(close)} of view '{view}' can no longer be read: a vacuum removed its files "
        f"(the view keeps closes readable for its `retain`); {oldest}")
