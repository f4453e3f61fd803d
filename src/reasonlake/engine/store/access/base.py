"""What every access mode answers (``access``): the questions the store asks of a table, each
answered the one way its mode reaches tables."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

Commit = tuple[int, int]  # version, timestamp (ms)
# a commit's version, operation, time (epoch ms), userMetadata, and whether it changed rows
CommitInfo = tuple[int, str, int, "str | None", bool]


class Access:
    """The interface; ``spark_sql.SparkSql`` is the mode that asks Spark everything."""

    name = "access"
    reads_here = False  # whether this process reads the tables' files itself
    writes_here = False  # whether the driver commits (arrow_commit, rs_commit) where it can

    def __init__(self, spark):
        self.spark = spark

    def __repr__(self) -> str:
        return f"<access {self.name}>"

    # -- the log --------------------------------------------------------------------------
    def latest_commit(self, path: str) -> Commit | None:
        """The table's latest commit; None when there is no table or the mode cannot tell."""
        raise NotImplementedError

    def is_delta(self, path: str) -> bool:
        """Whether a Delta table is at ``path``."""
        raise NotImplementedError

    def history(self, path: str, limit: int | None = None) -> list | None:
        """``DESCRIBE HISTORY``'s version, timestamp, operation, operationParameters and userMetadata as
        ``Row``s, newest first (at most ``limit``), read without Spark; None: ask Spark (``delta_sql.history``)."""
        return None

    def commits(self, path: str, start: int, end: int | None) -> list[CommitInfo]:
        """The commits ``start``..``end`` (None: the latest), oldest first, as
        ``CommitInfo``: whether a commit changed rows is read from its file actions where
        the mode reads them, else told by its operation's name."""
        raise NotImplementedError

    # -- rows read in this process ---------------------------------------------------------
    def folder(self, path: str) -> Path | None:
        """The table's folder where this process reads its files itself, else None."""
        return None

    def rows(self, path: str, columns: list[str] | None = None) -> list | None:
        """A small table's rows at its latest commit (``Row``s, as ``collect`` gives them),
        read without Spark; None: Spark reads. FileNotFoundError: no table there."""
        return None

    def query(self, tables: dict[str, tuple[str, int | None]], sql: str, max_bytes: int) -> pa.Table | None:
        """DataFusion ``sql`` over ``tables`` (name -> (path, version or None)) in this
        process, at most ``max_bytes`` of files; None: Spark reads."""
        return None

    def answer(self, tables: dict[str, tuple[str, int | None]], sql: str, max_bytes: int) -> pa.Table:
        """``sql`` over ``tables`` (name -> (path, version or None)), each table named in it
        as ``{name}``, always answered as Arrow: in this process where the mode reads the
        files itself and they hold at most ``max_bytes`` (``query``), else by Spark. The
        answer comes to the driver whole: for small answers (a count, a bound, a few rows)."""
        found = self.query(tables, sql.format(**{name: name for name in tables}), max_bytes)
        if found is not None:
            return found
        # each frame a temporary view named in the SQL, dropped after (classic and Connect alike)
        return self.spark.sql(sql, **self.frames(tables)).toArrow()

    def frames(self, tables: dict[str, tuple[str, int | None]]) -> dict:
        """Each table (name -> (path, version or None)) as a Spark frame, by name."""
        def read(path: str, version: int | None):
            reader = self.spark.read.format("delta")  # a reader each: ``option`` changes the one it is called on
            return (reader if version is None else reader.option("versionAsOf", version)).load(path)

        return {name: read(path, version) for name, (path, version) in tables.items()}

    # -- the driver's commits: always made, by this process where the mode commits here, else
    # -- by Spark here in the base (a compare-and-set alone has no Spark rendering: ``Unusable``)
    def append(self, path: str, frame: pl.DataFrame, *, schema: str, txn: tuple[str, int] | None = None) -> None:
        """``frame``'s rows appended in one commit (typed by ``schema``, a Spark DDL string;
        ``txn``: Delta's ``txnAppId``/``txnVersion``, so a retried call writes nothing)."""
        # imported here: a driver-only command reaches this module without loading Spark
        from reasonlake.engine.store.arrow_bridge import to_spark

        writer = to_spark(self.spark, frame, schema).write.format("delta").mode("append")
        if txn is not None:
            writer = writer.option("txnAppId", txn[0]).option("txnVersion", txn[1])
        writer.save(path)
        self.after_write(path)

    def replace_partitions(self, path: str, frame: pl.DataFrame, *, column: str, replaced, predicate: str | None,
                           schema, user_metadata: str | None = None) -> None:
        """The partitions of ``column`` that ``replaced`` names (``predicate``: the same as SQL;
        None: every partition) replaced by ``frame``'s rows, in one commit (``schema``: the
        table's Spark schema). Through Spark a replacement of some partitions is one task, a
        file a partition, so panes a slide keeps rewriting do not pile up small files."""
        # imported when called: it loads polars
        from reasonlake.engine.store.arrow_bridge import to_spark

        rows = to_spark(self.spark, frame, schema)
        writer = (rows if predicate is None else rows.coalesce(1)).write.format("delta").mode("overwrite")
        if predicate is not None:
            writer = writer.option("replaceWhere", predicate)
        if user_metadata is not None:
            writer = writer.option("userMetadata", user_metadata)
        writer.save(path)
        self.after_write(path)

    def rewrite_small(self, path: str, change):
        # imported when called: it loads polars
        from reasonlake.engine.store.arrow_tables import Unusable

        raise Unusable(f"{self.name} commits through Spark")

    def replaces_in_driver(self, path: str) -> bool:
        """Whether ``replace_partitions`` on ``path`` is committed by this process without
        Delta's file list in the JVM (which a Spark ``replaceWhere`` or ``DELETE`` builds
        first, with Spark jobs, and ``file_list`` builds ahead for them)."""
        return False

    def after_write(self, path: str) -> None:
        """What a commit made through Spark leaves to the mode (a local folder's checkpoint:
        ``log_upkeep``)."""
