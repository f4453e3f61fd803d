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

from reasonlake.engine.store import log_upkeep

# Delta's operations that change no rows (a history read as a table cannot see a commit's
# file actions, so it tells maintenance by its name)
MAINTENANCE = ("OPTIMIZE", "VACUUM START", "VACUUM END", "SET TBLPROPERTIES", "UNSET TBLPROPERTIES",
                "REORG", "ADD CONSTRAINT", "DROP CONSTRAINT", "CHANGE COLUMN", "ADD COLUMNS",
                "UPGRADE PROTOCOL", "ADD FEATURE", "DROP FEATURE")


def table(path: str) -> str:
    """The SQL name of the Delta table at ``path``."""
    return "delta.`" + path.replace("`", "``") + "`"


def history(spark, path: str, limit: int | None = None):
    """``DESCRIBE HISTORY`` of the table, newest first (at most ``limit`` commits)."""
    tail = f" LIMIT {int(limit)}" if limit is not None else ""
    return spark.sql(f"DESCRIBE HISTORY {table(path)}{tail}")


def properties(spark, path: str) -> dict:
    """The table's properties (``DESCRIBE DETAIL``)."""
    return spark.sql(f"DESCRIBE DETAIL {table(path)}").first().properties or {}


def delete(spark, path: str, condition: str) -> None:
    """``DELETE FROM`` the table where ``condition`` (SQL) holds; on partition columns only,
    Delta removes whole files and reads none."""
    spark.sql(f"DELETE FROM {table(path)} WHERE {condition}")
    log_upkeep.tend(path)


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
    log_upkeep.tend(path)
