"""The access mode that asks Spark everything: a Spark Connect session whose server may not
see this machine's files (Databricks Connect, a remote server), and the base of the others.

The log is asked as SQL, one call to the server each (``DESCRIBE HISTORY ... LIMIT 1``,
about 0.1 s: less than the reads an answer kept per commit saves); rows are read and commits
written by Spark (the base's Spark renderings).
"""
from __future__ import annotations

from datetime import timezone

from reasonlake.engine.store import delta_sql
from reasonlake.engine.store.access.base import Access, Commit, CommitInfo


class SparkSql(Access):
    name = "spark-sql"

    def latest_commit(self, path: str) -> Commit | None:
        try:
            row = delta_sql.history(self.spark, path, 1).select("version", "timestamp").first()
        except Exception:  # no Delta table there
            return None
        if row is None:
            return None
        return int(row.version), _ms(row.timestamp)

    def commits(self, path: str, start: int, end: int | None) -> list[CommitInfo]:
        upto = "" if end is None else f" AND version <= {int(end)}"
        rows = delta_sql.history(self.spark, path).where(f"version >= {int(start)}{upto}").collect()
        return [(r.version, r.operation, _ms(r.timestamp), r.userMetadata, r.operation not in delta_sql.MAINTENANCE)
                for r in sorted(rows, key=lambda r: r.version)]

    def is_delta(self, path: str) -> bool:
        try:
            return self.spark.sql(f"DESCRIBE DETAIL {delta_sql.table(path)}").first().format == "delta"
        except Exception as exc:  # no table there (or not a Delta one): an analysis error
            if _missing(exc):
                return False
            raise


def _ms(moment) -> int:
    """A history timestamp (a naive one is UTC, as the session's time zone) in epoch ms."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return int(aware.timestamp() * 1000)


def _missing(exc: Exception) -> bool:
    text = str(exc)
    return any(marker in text for marker in (
        "DELTA_MISSING_DELTA_TABLE", "is not a Delta table", "PATH_NOT_FOUND", "DELTA_TABLE_NOT_FOUND",
        "doesn't exist", "does not exist", "TABLE_OR_VIEW_NOT_FOUND"))
