"""What a folder of this machine answers when this process reads its files itself: the
shared reads of the two local modes (``local_folder``, ``local_over_connect``).

The latest commit is a listing of the log (no Spark job, no call to a server), a small
table's rows its checksum's files (``small_tables``), the history its commit files, a query
delta-rs's (``delta_rs_reads``); whatever the files cannot answer (a log cleaned up under
the listing, a feature the readers refuse) is asked of the session the mode sits on, and a
commit made through Spark gets its checkpoint here (``log_upkeep``).
"""
from __future__ import annotations

import json
from pathlib import Path

from reasonlake.engine.store import delta_rs_reads, log_upkeep, small_tables
from reasonlake.engine.store.access.base import Commit, CommitInfo
from reasonlake.engine.store.arrow_tables import Unusable
from reasonlake.engine.store.locations import local_path


class LocalFiles:
    """Mixed in before the session's mode (``SparkSql`` or ``ClassicSession``), which answers
    what the files do not; ``writer`` is the module that commits the driver's rows
    (``append``, ``replace_partitions``, ``rewrite_small``), ``replacer`` the one that
    replaces partitions (``replace_partitions``; None: ``writer``)."""

    writer = None
    replacer = None

    def __init__(self, spark, *, reads_here: bool = True, writes_here: bool = True):
        super().__init__(spark)
        self.reads_here, self.writes_here = reads_here, writes_here

    def folder(self, path: str) -> Path | None:
        return local_path(path) if self.reads_here else None

    def latest_commit(self, path: str) -> Commit | None:
        folder = self.folder(path)
        listed = False if folder is None else small_tables.latest_commit(folder)
        return super().latest_commit(path) if listed is False else listed

    def is_delta(self, path: str) -> bool:
        folder = self.folder(path)
        listed = False if folder is None else small_tables.latest_commit(folder)
        return super().is_delta(path) if listed is False else listed is not None

    def history(self, path: str, limit: int | None = None) -> list | None:
        folder = self.folder(path)
        return None if folder is None else small_tables.history(folder, limit)

    def commits(self, path: str, start: int, end: int | None) -> list[CommitInfo]:
        """Read from the commit files: a commit changed rows when it adds or removes a data
        file with ``dataChange``, or writes change data (``cdc``)."""
        folder = self.folder(path)
        if folder is None:
            return super().commits(path, start, end)
        log = folder / "_delta_log"
        if end is None:
            end = max(small_tables.commit_versions(log), default=start - 1)
        found = []
        try:
            for version in range(start, end + 1):
                operation, when, mark, data = "?", 0, None, False
                with (log / f"{version:020d}.json").open() as lines:
                    for line in lines:
                        action = json.loads(line)
                        if "commitInfo" in action:
                            info = action["commitInfo"]
                            operation, when, mark = info.get("operation", "?"), int(info.get("timestamp", 0)), \
                                info.get("userMetadata")
                        elif "add" in action or "remove" in action:
                            data = data or bool((action.get("add") or action.get("remove")).get("dataChange"))
                        elif "cdc" in action:
                            data = True
                found.append((version, operation, when, mark, data))
        except (OSError, ValueError):  # a commit file cleaned up under us: the session reads
            return super().commits(path, start, end)
        return found

    def rows(self, path: str, columns: list[str] | None = None) -> list | None:
        folder = self.folder(path)
        return None if folder is None else small_tables.rows(folder, columns)

    def query(self, tables: dict[str, tuple[str, int | None]], sql: str, max_bytes: int):
        folders = {name: (self.folder(path), version) for name, (path, version) in tables.items()}
        if any(folder is None for folder, _ in folders.values()):
            return None
        return delta_rs_reads.query(folders, sql, max_bytes)

    def after_write(self, path: str) -> None:
        log_upkeep.tend(path)

    def _writer(self, path: str):
        """The module that commits the driver's rows to ``path``."""
        if not self.writes_here:
            raise Unusable("the driver's commits are turned off")
        return self.writer

    def replaces_in_driver(self, path: str) -> bool:
        return self.writes_here and local_path(path) is not None

    def append(self, path, frame, *, schema, txn=None):
        try:
            self._writer(path).append(self.spark, path, frame, txn=txn)
        except Unusable:  # a table or a feature the driver's writer refuses, before it wrote: Spark commits
            super().append(path, frame, schema=schema, txn=txn)

    def replace_partitions(self, path, frame, *, column, replaced, predicate, schema, user_metadata=None):
        try:
            writer = self._writer(path)  # first: it refuses when the driver's commits are off
            (self.replacer or writer).replace_partitions(
                self.spark, path, frame, column=column, replaced=replaced, predicate=predicate,
                user_metadata=user_metadata)
        except Unusable:
            super().replace_partitions(path, frame, column=column, replaced=replaced, predicate=predicate,
                                       schema=schema, user_metadata=user_metadata)

    def rewrite_small(self, path, change):
        return self._writer(path).rewrite_small(self.spark, path, change)
