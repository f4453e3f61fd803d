"""Where a table is, and whether this process can reach its files itself: the facts the
access mode of a home is chosen from (``access``: a local folder or a URI; a classic session,
which shares this machine's files, or a Spark Connect one, which shares them only when its
server runs here).
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from reasonlake.engine.store.session import DeferredSession


def local_path(path: str) -> Path | None:
    """The local folder of a table path (plain or ``file:``), None for any other scheme."""
    parsed = urlparse(path)
    if parsed.scheme == "file":
        return Path(parsed.path)
    if parsed.scheme == "" and path.startswith("/"):
        return Path(path)
    return None


def is_connect(spark) -> bool:
    """Whether ``spark`` is a Spark Connect session (no JVM in this process)."""
    if isinstance(spark, DeferredSession):
        return spark.remote is not None if spark._session is None else is_connect(spark._session)
    return type(spark).__module__.startswith("pyspark.sql.connect")


def sees_our_files(spark) -> bool:
    """A classic session shares this machine's files; a Spark Connect session only when its
    server is on this machine (the loopback address): a remote server's "local" path may
    name another machine's folder."""
    if not is_connect(spark):
        return True
    try:
        if isinstance(spark, DeferredSession) and spark._session is None:  # not started: its address says
            host = urlparse(spark.remote.replace("sc://", "http://", 1)).hostname
        else:
            host = spark.client.host
    except (AttributeError, ValueError):
        return False
    return host in ("localhost", "127.0.0.1", "::1")
