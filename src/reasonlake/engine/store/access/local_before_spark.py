"""The access mode of a command whose embedded session has not started (``DeferredSession``)
over a folder of this machine: the files read here (``local_files``) and the driver's
commits written by delta-rs in this process (``rs_commit``), as over a local command server,
so that a command whose work the driver does (an ingest of a few files, a close the driver
holds) ends without a JVM (decision 0071). A question only Spark answers (``spark_sql``: the
log asked as SQL, a write of a table delta-rs cannot take) starts the session, which then
answers it as it would have.

The mode is chosen once per session: a command that started its session half-way goes on
committing with delta-rs, each commit a complete Delta commit that Spark's next read of the
table sees (its snapshot is brought up to date from the log, as after another process's
commit).
"""
from __future__ import annotations

from reasonlake.engine.store.access.local_over_connect import LocalOverConnect


class LocalBeforeSpark(LocalOverConnect):
    name = "local-before-spark"
