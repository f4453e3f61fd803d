"""A repair view's tables: the removed items (tombstones: the losers, which stay removed) and
the repair log (each repair with its conflict set and winners, named by the commit of the
view's table it went with), created with the view, expired with its window."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.store import commit_marks, delta_sql
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import KEY, REMOVED_SCHEMA, REPAIRS_SCHEMA
from reasonlake.repair.preferred import Decision, Item


def removed_path(home: Home, view: str) -> str:
    return home.removed_path(view)


def repairs_path(home: Home, view: str) -> str:
    return home.repairs_path(view)


def create(home: Home, view: str) -> None:
    home.spark.sql(
        f"CREATE TABLE IF NOT EXISTS delta.`{removed_path(home, view)}` ({REMOVED_SCHEMA}) "
        "USING DELTA PARTITIONED BY (exp_pane)"
    )
    home.spark.sql(f"CREATE TABLE IF NOT EXISTS delta.`{repairs_path(home, view)}` ({REPAIRS_SCHEMA}) USING DELTA")


def tombstones(home: Home, view: str, before: int | None = None) -> DataFrame:
    """Removed items (s, p, o, ts); with ``before``, only those removed at earlier closes
    (a re-run of a close decides again from the same state)."""
    table = home.spark.read.format("delta").load(removed_path(home, view))
    if before is not None:
        table = table.where(F.col("close") < before)
    return table.select(*KEY, "ts")


def tombstones_before(home: Home, view: str, seq: int) -> DataFrame:
    """The removed items as a run of sequence number ``seq`` first finds them. A run killed
    after writing its tombstones (and before recording its close) finds them on the re-run
    under the same ``seq``: it reads the table as it was before that commit, so it decides
    again from the same state, finds the same conflicts and records its close."""
    path = removed_path(home, view)
    marked = (delta_sql.history(home.spark, path, limit=commit_marks.LOOKBACK)
              .where(F.col("userMetadata") == commit_marks.mark(seq)).select("version").collect())
    if not marked:
        return tombstones(home, view)
    earlier = home.spark.read.format("delta").option("versionAsOf", marked[0].version - 1).load(path)
    return earlier.select(*KEY, "ts")


def write_tombstones(home: Home, view: str, rows: DataFrame, seq: int) -> int:
    """rows: already checkpointed by the caller (it reads them again)."""
    n = rows.count()
    if n:
        commit_marks.append(rows, removed_path(home, view), seq, f"removed-{view}")
    return n


def log_repairs(home: Home, view: str, decision: Decision, close: int, seq: int, version: int,
                mode: str) -> None:
    def item(i: Item) -> tuple:
        return (i.s, i.p, i.o, i.ts)

    rows = [
        (close, seq, version, mode, r.step, r.conflict.rule, item(r.item),
         [item(i) for i in sorted(r.conflict.items)], [item(i) for i in r.winners])
        for r in decision.removals
    ]
    if rows:
        path = repairs_path(home, view)
        frame = home.spark.createDataFrame(rows, REPAIRS_SCHEMA)
        if not commit_marks.append(frame, path, seq, f"repairs-{view}"):
            _names_version(home, frame, path, seq, version)


def _names_version(home: Home, frame, path: str, seq: int, version: int) -> None:
    """The log of ``seq`` names ``version``, the table version its close records. Logged by
    an attempt that stopped before recording its close, it names the version that attempt
    published; the close redone from the version before it (decision 0033), or the repair
    job run again, published another, and `export --version` reads only recorded ones: the
    log of ``seq`` is replaced by this attempt's (``frame``), in one commit marked for it."""
    other = (F.col("seq") == seq) & (F.col("version") != version)
    if not home.spark.read.format("delta").load(path).where(other).isEmpty():
        commit_marks.replace(frame, path, seq)


def expire(home: Home, view: str, close: int) -> None:
    """Tombstones leave when the items they remove would have left: a partition drop."""
    delta_sql.delete(home.spark, removed_path(home, view), f"exp_pane <= {int(close)}")
