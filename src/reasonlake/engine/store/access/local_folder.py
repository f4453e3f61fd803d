"""The access mode of a classic session over a folder of this machine (the embedded default):
the files read here (``local_files``), the log's other questions asked of Delta's classes in
the driver (``classic_session``), and the driver's commits written through Delta's own
transaction in this JVM (``arrow_commit``), so the session's cached log sees them as its
own writes; but its replacements of partitions by delta-rs (``rs_commit``): to remove a
partition's files, Delta's transaction needs the table's file list, which the JVM builds
from the log with Spark jobs (0.4-0.9 s after every commit of a view's table, most of an
idle close), where delta-rs replays the log itself in milliseconds (decision 0047).

The two tables that only the driver writes and no Spark job reads (``DRIVER_TABLES``: the
closes' records, the leases) are committed by delta-rs whole while this process reads
the home's files (decision 0060): an append to ``view_state`` through the JVM's
transaction took 0.05-0.15 s, most of it the session's log brought up to date, against
0.02-0.03 s by delta-rs. Whole, because a table must not switch between the two writers:
the JVM's first commit after one by delta-rs rebuilt its snapshot, 3-4 s.
"""
from __future__ import annotations

from pathlib import PurePosixPath

from reasonlake.engine.store import arrow_commit, rs_commit
from reasonlake.engine.store.access.classic_session import ClassicSession
from reasonlake.engine.store.access.local_files import LocalFiles

# the home's tables no Spark job reads or writes while this process reads the home's files:
# the closes' records (``state``) and the leases (``lease``), read here, compared-and-set here
DRIVER_TABLES = frozenset({"view_state", "leases"})


class LocalFolder(LocalFiles, ClassicSession):
    name = "local-folder"
    writer = arrow_commit
    replacer = rs_commit

    def _writer(self, path: str):
        writer = super()._writer(path)
        if self.reads_here and PurePosixPath(path.rstrip("/")).name in DRIVER_TABLES:
            return rs_commit
        return writer
