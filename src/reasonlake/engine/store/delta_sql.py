"""Delta operations as SQL, the one form every session takes.

Delta's Python table builder runs over Spark Connect only where the server has
Delta's Connect plugin (Databricks does, a plain Spark Connect server with Delta 4.4 does
not), while ``MERGE INTO``, ``DELETE FROM``, ``DESCRIBE HISTORY``/``DETAIL`` and ``VACUUM``
reach Delta through any session: classic, Spark Connect, Databricks serverless. The engine
writes and inspects its Delta tables through these functions only.
"""
from __future__ import annotations

import uuid
from contextlib import contextmanager


def table(path: str) -> str:
    """The SQL name of the Delta table at ``path``."""
    return "delta.`" + path.replace("`", "``") + "`"


def is_connect(spark) -> bool:
    """Whether ``spark`` is a Spark Connect session (no JVM in this process)."""
    from reasonlake.engine.store.session import DeferredSession

    if isinstance(spark, DeferredSession):
        return spark.remote is not None if spark._session is None else is_connect(spark._session)
    return type(spark).__module__.startswith("pyspark.sql.connect")


def is_delta(spark, path: str) -> bool:
    """Whether a Delta table exists at ``path``."""
    from reasonlake.engine.store import classic, small_tables

    listed = small_tables.latest_commit(spark, path)  # a local folder: its log listed here
    if listed is not False:
        return listed is not None
    found = classic.is_delta(spark, path)  # a look at the log from the driver: no Spark job
    if found is not None:
        return found
    try:
        return spark.sql(f"DESCRIBE DETAIL {table(path)}").first().format == "delta"
    except Exception as exc:  # no table there (or not a Delta one): an analysis error
        if _missing(exc):
            return False
        raise


def _missing(exc: Exception) -> bool:
    text = str(exc)
    return any(marker in text for marker in (
        "DELTA_MISSING_DELTA_TABLE", "is not a Delta table", "PATH_NOT_FOUND", "DELTA_TABLE_NOT_FOUND",
        "doesn't exist", "does not exist", "TABLE_OR_VIEW_NOT_FOUND"))


def history(spark, path: str, limit: int | None = None):
    """``DESCRIBE HISTORY`` of the table, newest first (at most ``limit`` commits)."""
    tail = f" LIMIT {int(limit)}" if limit is not None else ""
    return spark.sql(f"DESCRIBE HISTORY {table(path)}{tail}")


def latest_version(spark, path: str) -> int:
    """The table's latest version: from its log without a Spark job where the session can
    read it (``table_cache.latest_commit``), else from its history."""
    from reasonlake.engine.store.table_cache import latest_commit

    commit = latest_commit(spark, path)
    if commit is not None:
        return commit[0]
    return int(history(spark, path, 1).first().version)


def properties(spark, path: str) -> dict:
    """The table's properties (``DESCRIBE DETAIL``)."""
    return spark.sql(f"DESCRIBE DETAIL {table(path)}").first().properties or {}


def delete(spark, path: str, condition: str) -> None:
    """``DELETE FROM`` the table where ``condition`` (SQL) holds; on partition columns only,
    Delta removes whole files and reads none."""
    spark.sql(f"DELETE FROM {table(path)} WHERE {condition}")


def restore(spark, path: str, version: int) -> None:
    """``RESTORE`` the table to what it held at ``version``, as a new commit."""
    spark.sql(f"RESTORE TABLE {table(path)} TO VERSION AS OF {int(version)}")


def vacuum(spark, path: str, hours: float) -> None:
    spark.sql(f"VACUUM {table(path)} RETAIN {hours:.6f} HOURS")


@contextmanager
def _named(frame):
    """``frame`` under a temporary view name of its own for the statement's time."""
    name = f"reasonlake_source_{uuid.uuid4().hex}"
    frame.createOrReplaceTempView(name)
    try:
        yield name
    finally:
        frame.sparkSession.catalog.dropTempView(name)


def merge(path: str, source, on: str, *, update: dict[str, str] | None = None,
          update_when: str | None = None) -> None:
    """``MERGE INTO`` the table (alias ``t``) from ``source`` (alias ``u``) on ``on``:
    matched rows get ``update`` (column -> SQL expression) where ``update_when`` holds,
    rows not matched are inserted whole. Without ``update`` and with an ``on`` that names a
    partition literally, Delta's insert-only MERGE reads no target file."""
    with _named(source) as name:
        clauses = []
        if update:
            when = f" AND ({update_when})" if update_when else ""
            sets = ", ".join(f"t.`{column}` = {expr}" for column, expr in update.items())
            clauses.append(f"WHEN MATCHED{when} THEN UPDATE SET {sets}")
        clauses.append("WHEN NOT MATCHED THEN INSERT *")
        source.sparkSession.sql(
            f"MERGE INTO {table(path)} AS t USING {name} AS u ON {on} {' '.join(clauses)}")
