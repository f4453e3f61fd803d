"""A view's copy for readers outside Spark (``readable_copy: true``): what `reasonlake sql`
names the view (decoded terms, the window at the last published close, ``view_decoding``'s
columns) kept as a Delta table of its own, ``readable_<view>`` in the home, that delta-rs,
Polars, DuckDB or any Delta reader opens at its latest version without reasonlake.

The view's own table cannot be that: it holds term ids, keeps the rows a slide in progress
has written before its close is recorded, and anonymous class expressions. The copy is
written after a close is recorded (``catalog.show``), so its latest version is always a
published close; a withheld close (expectations) leaves it on the last close that passed.

It is partitioned as the view's table is, by ``exp_pane`` (the close at which a row leaves
the window; kept as a column, the one the copy has beyond `reasonlake sql`'s), so keeping it
costs what the close changed: the panes the view's table commits touched since the copy's
last version (read from the table's log) are written again, decoded, and the panes that
left the window dropped, in one commit. Each commit names the close and the view's table
version it shows (``userMetadata``), so a copy that missed closes (a crash after the close
was recorded, the setting turned on later) catches up at the next one: a log it can no
longer read (cleaned up) or a version behind its own means the whole copy is written again.

Written by delta-rs in this process where the home is a local folder and the rows fit the
driver's reads (``driver_reads``); through Spark otherwise (an object store, a session on a
remote server, a large view).
"""
from __future__ import annotations

import json

import pyarrow as pa

from reasonlake.engine.store import access, driver_reads, table_log
from reasonlake.engine.store.delta_sql import MAINTENANCE
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.home import Home

PANE = "exp_pane"


def path(home: Home, view: str) -> str:
    return home.path(f"readable_{view}")


def show(home: Home, view: str, record) -> None:
    """Bring the view's copy to the close ``record`` published (a close, a rebuild, a
    repair), when the view keeps one (``catalog.show``, which passes over a withheld close)."""
    if not home.view(view).readable_copy:
        return
    mark = _mark(home, view)
    panes = None if mark is None else _touched_panes(home, view, mark, record.version)
    # the copy's rows, described once: the panes the close changed, or all
    tables, render = driver_reads.view_read(home, view, record.version, record.close,
                                            lambda dialect: _columns(dialect, home.view(view).window),
                                            where=_in_panes(record.close, panes))
    if not _write_in_driver(home, view, record, panes, tables, render):
        _write_through_spark(home, view, record, panes, driver_reads.frame(home.spark, tables, render))


# ---- what the copy shows and what changed since ---------------------------------------------


def _mark(home: Home, view: str) -> dict | None:
    """The close and view-table version the copy's latest data commit shows (commits that
    change no row, a vacuum's, are passed over); None: no copy, or its latest data commit is
    not one this module wrote."""
    where = path(home, view)
    try:
        if not table_log.is_delta(home.spark, where):
            return None
        commits = [(r.operation, r.userMetadata) for r in
                   table_log.history(home.spark, where, ["operation", "userMetadata"], 10)]
        text = next((note for operation, note in commits if operation not in MAINTENANCE), None)
        mark = json.loads(text) if text else None
    except Exception:  # no table there, or one without our mark: written again whole
        return None
    return mark if isinstance(mark, dict) and {"close", "version"} <= mark.keys() else None


def _touched_panes(home: Home, view: str, mark: dict, version: int) -> set[int] | None:
    """The panes whose files the view's table commits after the copy's version added or
    removed (a MERGE's deletion vector is a remove and an add of the same file); None:
    the copy is to be written whole (a version behind its own, a commit file cleaned up)."""
    since = int(mark["version"])
    if since > version:
        return None
    if since == version:
        return set()
    mat = home.mat_path(view)
    names = [f"{mat}/_delta_log/{v:020d}.json" for v in range(since + 1, version + 1)]
    folder = access.of(home.spark, mat).folder(mat)
    try:
        if folder is not None:
            actions = [json.loads(line) for v in range(since + 1, version + 1)
                       for line in open(folder / "_delta_log" / f"{v:020d}.json")]
            found = [a[kind].get("partitionValues", {}).get(PANE) for a in actions for kind in ("add", "remove") if kind in a]
        else:
            # imported when called: it loads pyspark (the JVM)
            from pyspark.sql import functions as F

            commits = home.spark.read.json(names)
            kinds = [F.col(f"{kind}.partitionValues.{PANE}") for kind in ("add", "remove") if kind in commits.columns]
            found = [p for r in commits.select(F.array(*kinds).alias("panes")).collect() for p in r.panes] if kinds else []
    except Exception:  # a commit file gone (log retention): the whole copy again
        return None
    return {int(p) for p in found if p is not None}


def _replaced(close: int, panes: set[int] | None) -> str | None:
    """The copy's rows a commit replaces: the touched panes and those the window left."""
    if panes is None:
        return None
    listed = ", ".join(str(p) for p in sorted(panes))
    return f"{PANE} <= {int(close)}" + (f" OR {PANE} IN ({listed})" if panes else "")


def _columns(dialect, window) -> list[str]:
    return [*decoding.reader_columns(dialect, window), f"m.{PANE} AS {PANE}"]


def _in_panes(close: int, panes: set[int] | None) -> str | None:
    if panes is None:
        return None
    kept = sorted(p for p in panes if p > close)
    return f"m.{PANE} IN ({', '.join(map(str, kept))})" if kept else "FALSE"


def _note(record) -> str:
    return json.dumps({"close": int(record.close), "version": int(record.version)})


# ---- the two writers ------------------------------------------------------------------------


def _write_in_driver(home: Home, view: str, record, panes: set[int] | None, tables, render) -> bool:
    """The copy's commit by delta-rs in this process, of the rows read here; False, writing
    nothing, where Spark must read or write."""
    where = path(home, view)
    folder = access.of(home.spark, where).folder(where)
    if folder is None:
        return False
    try:
        # imported when called: it loads deltalake
        import deltalake
    except ImportError:
        return False
    found = driver_reads.here(home.spark, tables, render)
    if found is None:
        return False
    rows = pa.table({**decoding.reader_arrow(found, "us"), PANE: found.column(PANE).cast(pa.int64())})
    replaced = _replaced(record.close, panes) if deltalake.DeltaTable.is_deltatable(str(folder)) else None
    deltalake.write_deltalake(
        str(folder), rows, mode="overwrite", predicate=replaced, partition_by=[PANE],
        schema_mode=None if replaced else "overwrite",
        commit_properties=deltalake.CommitProperties(custom_metadata={"userMetadata": _note(record)}))
    return True


def _write_through_spark(home: Home, view: str, record, panes: set[int] | None, rows) -> None:
    """The copy's commit by Spark, of ``rows`` (the same read, planned on Spark)."""
    write = (rows.repartition(PANE).write.format("delta").mode("overwrite")
             .option("userMetadata", _note(record)).partitionBy(PANE))
    replaced = _replaced(record.close, panes)
    if replaced is not None:
        write = write.option("replaceWhere", replaced)
    else:
        write = write.option("overwriteSchema", "true")
    write.save(path(home, view))
