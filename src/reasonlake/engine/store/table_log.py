"""A Delta table's log asked the cheapest way this process can: the latest commit, the
latest version, whether a table is there. Listed here where the table is a local folder this
process sees (``small_tables``), read by Delta's classes in the driver on a classic session
(``classic``, no Spark job), else asked of Spark (its history, one call to a Spark Connect
server).
"""
from __future__ import annotations

from datetime import timezone

from reasonlake.engine.store import classic, delta_sql, small_tables

Commit = tuple[int, int]  # version, timestamp (ms)


def latest_commit(spark, path: str) -> Commit | None:
    """The table's latest commit; None when the table does not exist or the session cannot
    tell. From a listing of its log where it is a local folder (``small_tables``); else
    from its log in the driver on a classic session (no Spark job); from its history on
    Spark Connect (one call to the server, about 0.1 s: less than the reads it saves)."""
    listed = small_tables.latest_commit(spark, path)  # a local folder: its log, listed here
    if listed is not False:
        return listed
    try:
        snapshot = classic.snapshot(spark, path)
        if snapshot is None:
            return _from_history(spark, path)
        version = snapshot.version()
        return (version, snapshot.timestamp()) if version >= 0 else None
    except Exception:  # an API this Delta build lacks: read without the cache
        return None


def _from_history(spark, path: str) -> Commit | None:
    try:
        row = delta_sql.history(spark, path, 1).select("version", "timestamp").first()
    except Exception:  # no Delta table there
        return None
    if row is None:
        return None
    moment = row.timestamp if row.timestamp.tzinfo else row.timestamp.replace(tzinfo=timezone.utc)
    return int(row.version), int(moment.timestamp() * 1000)


def latest_version(spark, path: str) -> int:
    """The table's latest version: from its log without a Spark job where the session can
    read it (``latest_commit``), else from its history."""
    commit = latest_commit(spark, path)
    if commit is not None:
        return commit[0]
    return int(delta_sql.history(spark, path, 1).first().version)


def is_delta(spark, path: str) -> bool:
    """Whether a Delta table exists at ``path``."""
    listed = small_tables.latest_commit(spark, path)  # a local folder: its log listed here
    if listed is not False:
        return listed is not None
    found = classic.is_delta(spark, path)  # a look at the log from the driver: no Spark job
    if found is not None:
        return found
    try:
        return spark.sql(f"DESCRIBE DETAIL {delta_sql.table(path)}").first().format == "delta"
    except Exception as exc:  # no table there (or not a Delta one): an analysis error
        if _missing(exc):
            return False
        raise


def _missing(exc: Exception) -> bool:
    text = str(exc)
    return any(marker in text for marker in (
        "DELTA_MISSING_DELTA_TABLE", "is not a Delta table", "PATH_NOT_FOUND", "DELTA_TABLE_NOT_FOUND",
        "doesn't exist", "does not exist", "TABLE_OR_VIEW_NOT_FOUND"))
