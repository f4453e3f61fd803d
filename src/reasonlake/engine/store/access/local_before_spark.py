"""The access mode of a command whose embedded session has not started (``DeferredSession``)
over a folder of this machine: ``local_folder``'s, but every driver commit written by
delta-rs in this process (``rs_commit``), as over a local command server, so that a command
whose work the driver does (an ingest of local files, a close the driver holds) ends
without a JVM (decision 0071). A question only the JVM answers (the log asked of Delta's
classes, a write of a table delta-rs cannot take, a Spark job) starts the session, which
then answers it as it would have.

The mode is chosen once per session: a command that started its session half-way goes on
committing with delta-rs, each commit a complete Delta commit that Spark's next read of the
table sees (its snapshot is brought up to date from the log, as after another process's
commit).
"""
from __future__ import annotations

from reasonlake.engine.store import rs_commit
from reasonlake.engine.store.access.local_folder import LocalFolder


class LocalBeforeSpark(LocalFolder):
    name = "local-before-spark"
    writer = rs_commit
