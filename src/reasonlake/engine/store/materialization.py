"""The materialization table of a view: layout, expiry, publishing with MERGE."""
from __future__ import annotations

import polars as pl
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.process.timing import step
from reasonlake.engine.store import delta_sql, log_upkeep, session_marks, table_log, view_decoding
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.locations import local_path
from reasonlake.engine.store.schemas import MAT_SCHEMA
from reasonlake.plan.windows import Window


def create(home: Home, view: str) -> None:
    # Deletion vectors let MERGE mark renewed rows instead of rewriting whole files. On a
    # local home the store writes the checkpoints after its commits (log_upkeep), not the
    # close whose commit is every tenth.
    settings = ["delta.enableDeletionVectors = true"]
    if local_path(home.mat_path(view)) is not None:
        settings.append(f"delta.checkpointInterval = {log_upkeep.OURS_FROM}")
    home.spark.sql(
        f"CREATE TABLE IF NOT EXISTS delta.`{home.mat_path(view)}` ({MAT_SCHEMA}) USING DELTA "
        f"PARTITIONED BY (exp_pane) TBLPROPERTIES ({', '.join(settings)})"
    )


def expiration_pane(origin: str, window: Window) -> Column:
    """Window.expiration_pane over the column ``origin`` of a Spark frame."""
    return F.expr(view_decoding.expiration_pane(window, origin))


def current(home: Home, view: str) -> DataFrame:
    return home.table(f"mat_{view}")


def next_expiry(home: Home, view: str, after: int) -> int | None:
    """The first expiration pane after ``after`` in the table as it is now (None: none),
    read in this process where the home allows it (a partition column: the log answers)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    found = driver_reads.answer(home.spark, {"mat": (home.mat_path(view), None)},
                                f"SELECT min(exp_pane) AS m FROM {{mat}} WHERE exp_pane > {int(after)}")
    return found.column("m")[0].as_py()


def version(home: Home, view: str) -> int:
    return table_log.latest_version(home.spark, home.mat_path(view))


def expire(home: Home, view: str, close: int) -> int:
    """Drop every fact that left the window at ``close``: whole partitions, no data rewritten."""
    leaving = expiring(home, view, close)
    if leaving:
        drop_expired(home, view, close)
    return leaving


def expiring(home: Home, view: str, close: int) -> int:
    """How many facts leave the window at ``close`` (the table's rows in panes at or before
    it), read in this process where the home allows it (a partition column: no Spark job)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    found = driver_reads.answer(home.spark, {"mat": (home.mat_path(view), None)},
                                f"SELECT count(*) AS n FROM {{mat}} WHERE exp_pane <= {int(close)}")
    return int(found.column("n")[0].as_py())


def drop_expired(home: Home, view: str, close: int) -> None:
    """One commit removing the partitions that expire at ``close``."""
    with step("drop expired"):
        # A predicate on the partition column only: Delta removes files, reads none.
        delta_sql.delete(home.spark, home.mat_path(view), f"exp_pane <= {int(close)}")


def publish(home: Home, view: str, window: Window, changes: DataFrame, *,
            old_panes: list[int] | None = None) -> None:
    """Insert new facts and update renewed ones, in one MERGE commit.

    MERGE prunes files only on literal target predicates, so the panes that renewed facts
    are leaving are listed literally in the ON clause (decision 0004). ``old_panes``:
    those panes when the caller knows them (``[]``: nothing renewed), else one Spark job.
    """
    if old_panes is None:
        old_panes = [
            r.pane
            for r in changes.where(F.col("prev_origin").isNotNull())
            .select(expiration_pane("prev_origin", window).alias("pane"))
            .distinct()
            .collect()
        ]
    pane_list = ", ".join(str(p) for p in sorted(old_panes)) or str(-(2**63))
    source = changes.select(
        "s", "p", "o", "origin", expiration_pane("origin", window).alias("exp_pane"), "rule"
    )
    # Without renewals this is Delta's insert-only MERGE: no target file is read.
    delta_sql.merge(
        home.mat_path(view), source, f"t.s = u.s AND t.p = u.p AND t.o = u.o AND t.exp_pane IN ({pane_list})",
        update={"origin": "u.origin", "exp_pane": "u.exp_pane", "rule": "u.rule"} if old_panes else None)


def publish_rewritten(home: Home, view: str, window: Window, base: DataFrame, changes: DataFrame,
                      panes: list[int], drop_upto: int | None = None, small: bool = False) -> None:
    """A close's changes in one commit that writes the panes they touch again (``panes``:
    those of the changed facts, those renewed facts leave, and any other whose rows
    ``base`` changes), from ``base``, the table as the close changed it (s, p, o, origin,
    rule, checkpointed: no file of the table is read) and ``changes`` relative to it.

    A MERGE runs about seventeen Spark jobs (its source materialized, the files scanned for
    matches, the changed rows and the deletion vectors written, each under adaptive
    execution); this is a join, a shuffle and a write. Worth it while the touched panes are
    a small table (``REPLACE_ROWS``). ``drop_upto``: the panes at or before it (expired) go
    in the same commit; ``small``: the changes are few enough to broadcast."""
    if not panes and drop_upto is None:
        return
    key = ["s", "p", "o"]
    pane = expiration_pane("origin", window)
    literal = ", ".join(str(p) for p in sorted(panes)) or str(-(2**63))
    kept = base.select(*key, "origin", pane.alias("exp_pane"), "rule").where(f"exp_pane IN ({literal})")
    new = changes.select(*key, "origin", pane.alias("exp_pane"), "rule")
    keys = new.select(*key)
    # the changes' keys broadcast where few (a shuffle of both sides is a job each)
    content = kept.join(F.broadcast(keys) if small else keys, key, "left_anti").unionByName(new)
    replaced = f"exp_pane IN ({literal})" + ("" if drop_upto is None else f" OR exp_pane <= {int(drop_upto)}")
    (
        content.repartition("exp_pane")  # one file per pane
        .write.format("delta").mode("overwrite").option("replaceWhere", replaced)
        .save(home.mat_path(view))
    )
    home.access.after_write(home.mat_path(view))


# Above this many rows in the panes a close touches, a MERGE costs less than writing them
# again through Spark (written by the driver, writing them again always wins). Measured on 2 cores (a 750k-row table, a close adding 250k facts and renewing 1.6k
# spread over every pane): writing the touched panes again 4.7-6.2 s, the MERGE 14-16 s (it
# joins every source row with every touched file twice: to find the files, then to write
# the deletion vectors), a MERGE deleting only the renewed rows then an append 10.7 s.
REPLACE_ROWS = 3_000_000


def pane_of(origin: str, window: Window) -> pl.Expr:
    """Window.expiration_pane over the column ``origin`` of a driver frame."""
    return pl.sql_expr(view_decoding.expiration_pane(window, origin))


def replace_panes(home: Home, view: str, rows: pl.DataFrame, panes: set[int], drop_upto: int | None) -> bool:
    """Publish a close whose whole table is in the driver (``resident``) in one commit:
    the panes it touched are written again as ``rows`` (s, p, o, origin, rule, exp_pane:
    every fact of those panes), and, with ``drop_upto``, the partitions expiring at that
    close are dropped.

    A MERGE reads the touched panes' files to find the rows it changes, then writes them
    again; here nothing is read, each touched pane comes out as one file (so the panes a
    slide keeps renewing do not pile up small files), and expiry is the same commit.
    Written by the driver (``arrow_commit``) whatever their size: the rows are there
    already and Polars writes a million of them in about 0.2 s. Through Spark, returns
    False, writing nothing, when the touched panes hold more than ``REPLACE_ROWS`` rows
    (the caller merges)."""
    rows = rows.select("s", "p", "o", "origin", "exp_pane", "rule")
    literal = ", ".join(str(p) for p in sorted(panes))
    condition = " OR ".join(([f"exp_pane IN ({literal})"] if panes else [])
                            + ([f"exp_pane <= {drop_upto}"] if drop_upto is not None else []))
    if not condition:
        return True
    touched = set(panes)

    def replaced(pane: int) -> bool:
        return pane in touched or (drop_upto is not None and pane <= drop_upto)

    if not home.access.replaces_in_driver(home.mat_path(view)) and rows.height > REPLACE_ROWS:
        return False  # through Spark, one task would write them all: the caller merges
    # by the driver where the home allows it (a file per pane, no Spark job), else by Spark
    home.access.replace_partitions(home.mat_path(view), rows, column="exp_pane", replaced=replaced,
                                   predicate=condition, schema=MAT_SCHEMA)
    return True


def overwrite_rows(home: Home, view: str, window: Window, facts: pl.DataFrame, close: int) -> None:
    """``overwrite`` of facts the driver holds (s, p, o, origin, rule): written by the
    driver and committed by Delta (``arrow_commit``), a file per pane and no Spark job,
    where the session and the home allow it; else the same rows through Spark."""
    rows = facts.select("s", "p", "o", "origin", pane_of("origin", window).alias("exp_pane"), "rule")
    home.access.replace_partitions(home.mat_path(view), rows, column="exp_pane", replaced=lambda pane: True,
                                   predicate=None, schema=MAT_SCHEMA, user_metadata=session_marks.rebuild_mark(close))


def overwrite(home: Home, view: str, window: Window, facts: DataFrame, close: int | None = None) -> None:
    """Replace the whole table in one commit (rebuild); the commit names the ``close`` it
    holds, so a slide can tell a rebuild that stopped before recording it."""

    write = facts.select(
        "s", "p", "o", "origin", expiration_pane("origin", window).alias("exp_pane"), "rule"
    ).write.format("delta").mode("overwrite")
    if close is not None:
        write = write.option("userMetadata", session_marks.rebuild_mark(close))
    write.save(home.mat_path(view))
    home.access.after_write(home.mat_path(view))


def publish_repaired(home: Home, view: str, window: Window, remaining: DataFrame, changes: DataFrame,
                     deleted: DataFrame) -> None:
    """A repaired close in one commit: the panes it touches written again.

    remaining: the table without the over-deleted rows (s, p, o, origin, rule), the base the
    insertion ran on; deleted: the over-deleted rows; changes: the insertion's effect
    relative to ``remaining`` (prev_origin null for a restored fact).

    Repair takes facts out of panes all over the window (a loser's consequences carry the
    loser's time), so a MERGE reads nearly every pane three times (find the touched files,
    write the changed rows, write the deletion vectors). Each touched pane is written once
    instead, from ``remaining`` held in memory: 1M-triple window, 1% of it in conflicts,
    10-11 s as a MERGE, 6 s written again (decision 0007). It also leaves one file and no
    deletion vector per pane."""
    pane = expiration_pane("origin", window)
    touched = (
        deleted.select(pane.alias("pane"))
        .unionByName(changes.select(pane.alias("pane")))
        .unionByName(changes.where(F.col("prev_origin").isNotNull())
                     .select(expiration_pane("prev_origin", window).alias("pane")))
        .distinct()
    )
    publish_rewritten(home, view, window, remaining, changes, [r.pane for r in touched.collect()])
