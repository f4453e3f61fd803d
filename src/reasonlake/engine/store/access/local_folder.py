"""The access mode of a classic session over a folder of this machine (the embedded default):
the files read here (``local_files``), the log's other questions asked of Delta's classes in
the driver (``classic_session``), and the driver's commits written through Delta's own
transaction in this JVM (``arrow_commit``), so the session's cached log sees them as its
own writes; but its replacements of partitions by delta-rs (``rs_commit``): to remove a
partition's files, Delta's transaction needs the table's file list, which the JVM builds
from the log with Spark jobs (0.4-0.9 s after every commit of a view's table, most of an
idle close), where delta-rs replays the log itself in milliseconds (decision 0047).
"""
from __future__ import annotations

from reasonlake.engine.store import arrow_commit, rs_commit
from reasonlake.engine.store.access.classic_session import ClassicSession
from reasonlake.engine.store.access.local_files import LocalFiles


class LocalFolder(LocalFiles, ClassicSession):
    name = "local-folder"
    writer = arrow_commit
    replacer = rs_commit
