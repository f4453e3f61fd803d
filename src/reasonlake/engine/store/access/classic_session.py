"""The access mode of a classic session (the JVM in this process: the embedded session, a
cluster's driver, a Databricks job) over a place this process does not list (object storage,
``dbfs:/``, a Unity Catalog volume): Delta's log classes answer in the driver what a Spark
job would otherwise be asked (the latest commit, whether a table is there); rows are read
and commits written by Spark. ``local_folder`` builds on it for a folder of this machine.
"""
from __future__ import annotations

from reasonlake.engine.store import classic
from reasonlake.engine.store.access.base import Commit
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

    def is_delta(self, path: str) -> bool:
        found = classic.is_delta(self.spark, path)  # a look at the log from the driver: no Spark job
        return super().is_delta(path) if found is None else found
