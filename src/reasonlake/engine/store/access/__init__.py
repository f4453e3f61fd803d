"""How this process reaches a home's Delta tables: one access mode, chosen once per session
and kind of place, that every read of a log or a small table, every driver commit, every
compare-and-set and every in-process query goes through (decision 0043).

The modes, one module each, from the one that asks Spark everything to the one that reads
and writes the files itself:

- ``spark_sql.SparkSql``: a Spark Connect session whose server may not see this machine's
  files, or any session over a place this process cannot list: the log asked as SQL
  (``DESCRIBE HISTORY`` / ``DETAIL``), rows read and commits written by Spark;
- ``classic_session.ClassicSession``: a classic session (the JVM in this process) over a place it
  cannot list (object storage, ``dbfs:/``): the log read by Delta's classes in the driver,
  no Spark job;
- ``local_folder.LocalFolder``: a classic session over a folder of this machine: the log
  listed, small tables and queries read by this process (``local_files``), the driver's
  commits through Delta's own transaction (``arrow_commit``);
- ``local_over_connect.LocalOverConnect``: a Spark Connect server on this machine over a
  folder of this machine: the same reads, the driver's commits by delta-rs (``rs_commit``);
- ``local_before_spark.LocalBeforeSpark``: a command's embedded session not started yet
  (``DeferredSession``) over a folder of this machine: ``LocalFolder`` with every driver
  commit by delta-rs; what only the JVM answers starts the session (decision 0071).

The base (``base.Access``) renders each question for Spark; a mode that reads or commits in
this process answers where it can and defers to the base inside the interface, so a small
answer (``answer``), an append and a replacement of partitions are one call that always
lands. Two kinds of question still return None for their caller to take elsewhere: a read
whose answer may be too large to collect (``query``, ``rows``: the caller keeps the frame
in Spark), and ``rewrite_small``, a compare-and-set that raises ``Unusable`` where Spark
must take it (its Spark form is a MERGE or an UPDATE of the caller's own). ``REASONLAKE_SMALL_TABLES=0`` keeps a local mode's reads on Spark and
``REASONLAKE_ARROW_COMMIT=0`` (or a Databricks runtime, whose Delta build differs) its
commits; both are part of the choice.
"""
from __future__ import annotations

from reasonlake import settings
from reasonlake.engine.store import locations, process_cache
from reasonlake.engine.store.access.base import Access, Commit, CommitInfo
from reasonlake.engine.store.arrow_tables import Unusable
from reasonlake.engine.store.session import DeferredSession

__all__ = ["Access", "Commit", "CommitInfo", "Unusable", "of"]


def of(spark, path: str) -> Access:
    """The access mode for the tables at ``path`` (any table of a home: they share its
    place) through ``spark``, chosen on first use and kept on the session's cache."""
    key = (locations.local_path(path) is not None,
           not settings.is_set("REASONLAKE_SMALL_TABLES", "0"),
           not settings.is_set("REASONLAKE_ARROW_COMMIT", "0") and not settings.environment("DATABRICKS_RUNTIME_VERSION"))
    chosen = process_cache.of(spark).access
    mode = chosen.get(key)
    if mode is None:
        mode = chosen[key] = _choose(spark, *key)
    return mode


def _not_started(spark) -> bool:
    """An embedded session a command defers (``DeferredSession``) that has not started: the
    command may end without it."""
    return isinstance(spark, DeferredSession) and spark.remote is None and spark._session is None


def _choose(spark, local: bool, reads_here: bool, writes_here: bool) -> Access:
    connect = locations.is_connect(spark)
    if local and reads_here and writes_here and _not_started(spark):
        # imported when called: it loads pyarrow
        from reasonlake.engine.store.access.local_before_spark import LocalBeforeSpark

        return LocalBeforeSpark(spark, reads_here=reads_here, writes_here=writes_here)
    if local and (not connect or locations.sees_our_files(spark)):
        if connect:
            # imported when called: it loads pyarrow
            from reasonlake.engine.store.access.local_over_connect import LocalOverConnect

            return LocalOverConnect(spark, reads_here=reads_here, writes_here=writes_here)
        # imported when called: it loads pyarrow
        from reasonlake.engine.store.access.local_folder import LocalFolder

        return LocalFolder(spark, reads_here=reads_here, writes_here=writes_here)
    if connect:
        from reasonlake.engine.store.access.spark_sql import SparkSql

        return SparkSql(spark)
    from reasonlake.engine.store.access.classic_session import ClassicSession

    return ClassicSession(spark)
