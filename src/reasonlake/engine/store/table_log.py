"""A Delta table's log asked through the home's access mode (``access``): the latest commit,
the latest version, whether a table is there; each mode answers it its one way (listed
here, read by Delta's classes in the driver, asked of Spark).
"""
from __future__ import annotations

from reasonlake.engine.store import access, delta_sql
from reasonlake.engine.store.access import Commit

__all__ = ["Commit", "history", "is_delta", "latest_commit", "latest_version"]


def latest_commit(spark, path: str) -> Commit | None:
    """The table's latest commit; None when the table does not exist or the session cannot
    tell."""
    return access.of(spark, path).latest_commit(path)


def latest_version(spark, path: str) -> int:
    """The table's latest version: from its log without a Spark job where the mode can read
    it (``latest_commit``), else from its history."""
    commit = latest_commit(spark, path)
    if commit is not None:
        return commit[0]
    return int(delta_sql.history(spark, path, 1).first().version)


def history(spark, path: str, columns: list[str], limit: int | None = None) -> list:
    """``DESCRIBE HISTORY``'s ``columns`` (of version, timestamp, operation,
    operationParameters, userMetadata) as ``Row``s, newest first, at most ``limit``: read
    by the access mode where it can (a local folder's commit files), else asked of Spark."""
    rows = access.of(spark, path).history(path, limit)
    if rows is not None:
        return rows
    return delta_sql.history(spark, path, limit).select(*columns).collect()


def is_delta(spark, path: str) -> bool:
    """Whether a Delta table exists at ``path``."""
    return access.of(spark, path).is_delta(path)
