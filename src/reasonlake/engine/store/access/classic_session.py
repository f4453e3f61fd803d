"""The access mode of a classic session (the JVM in this process: the embedded session, a
cluster's driver, a Databricks job) over a place this process does not list (object storage,
``dbfs:/``, a Unity Catalog volume): Delta's log classes answer in the driver what a Spark
job would otherwise be asked (the latest commit, whether a table is there); rows are read
and commits written by Spark. ``local_folder`` builds on it for a folder of this machine.
"""
from __future__ import annotations

from reasonlake.spark import classic
from reasonlake.engine.store.access.base import Commit, CommitInfo
from reasonlake.engine.store.access.spark_sql import SparkSql


class ClassicSession(SparkSql):
    name = "classic-session"

    def latest_commit(self, path: str) -> Commit | None:
        try:
            snapshot = classic.snapshot(self.spark, path)
            if snapshot is None:
                return super().latest_commit(path)
            version = snapshot.version()
            return (version, snapshot.timestamp()) if version >= 0 else None
        except Exception:  # an API this Delta build lacks: the caller reads without a kept answer
            return None

    def commits(self, path: str, start: int, end: int | None) -> list[CommitInfo]:
        """Read by Delta's classes from the log's actions (no Spark job): a commit changed
        rows when it adds or removes a data file with ``dataChange``, or writes change data."""
        try:
            if end is None:
                end = self.latest_commit(path)[0]
            changes = classic.changes(self.spark, path, start, end)
        except Exception:  # an API this Delta build lacks: the history as a table
            changes = None
        if changes is None:
            return super().commits(path, start, end)
        found = []
        while changes.hasNext():
            entry = changes.next()
            operation, when, mark, data = "?", 0, None, False
            actions = entry._2().iterator()
            while actions.hasNext():
                action = actions.next()
                kind = action.getClass().getSimpleName()
                if kind == "CommitInfo":
                    operation = action.operation()
                    when = int(action.timestamp().getTime())
                    mark = action.userMetadata().get() if action.userMetadata().isDefined() else None
                elif kind in ("AddFile", "RemoveFile"):
                    data = data or bool(action.dataChange())
                elif kind == "AddCDCFile":
                    data = True
            found.append((int(entry._1()), operation, when, mark, data))
        return found

    def is_delta(self, path: str) -> bool:
        found = classic.is_delta(self.spark, path)  # a look at the log from the driver: no Spark job
        return super().is_delta(path) if found is None else found
