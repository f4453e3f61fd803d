"""The access mode of a Spark Connect server on this machine (the loopback address: the
command server, a local ``start-connect-server``) over a folder of this machine: the files
read here (``local_files``), the log's other questions asked of the server as SQL
(``spark_sql``), and the driver's commits written by delta-rs in this process
(``rs_commit``, decision 0030): the server has the JVM, this process has the files.
"""
from __future__ import annotations

from reasonlake.engine.store import rs_commit
from reasonlake.engine.store.access.local_files import LocalFiles
from reasonlake.engine.store.access.spark_sql import SparkSql


class LocalOverConnect(LocalFiles, SparkSql):
    name = "local-over-connect"
    writer = rs_commit
