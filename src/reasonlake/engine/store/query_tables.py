"""The table of a registered query (``<view>__<query>``): what it streamed out at each close.

One row per solution: the query's variables as String columns (N-Triples text, null
unbound), ``close`` (epoch ms, as every table of the home keeps times; the SQL name shows
it as a timestamp) and ``view_version``, the version of the view's table the answer was
computed on. A close writes its rows in one commit that also removes every row at that
close or later: a close redone after a crash replaces what its first attempt wrote (the
version may differ), a rebuild at a close drops the later closes the next slide redoes, and
a close written twice leaves its rows once.

The table is made by its first write, with the columns of the rows written. Where the home
is a local folder this process shares, delta-rs writes it here (no Spark job, as the driver
writes its other small commits: ``rs_commit``); elsewhere, or when the query's variables
changed since the table was made (its columns then grow), Spark does.
"""
from __future__ import annotations

import polars as pl

from reasonlake.declare.queries import QueryDecl
from reasonlake.engine.store import access, session_marks, table_log
from reasonlake.engine.store.arrow_bridge import to_spark
from reasonlake.engine.store.home import Home

CLOSE, VERSION = "close", "view_version"


def path(home: Home, view: str, query: QueryDecl) -> str:
    return home.path(query.table(view))


def frame(variables: list[str], solutions: pl.DataFrame, close: int, version: int) -> pl.DataFrame:
    """A close's rows: the solutions' variables as strings, then its close and version."""
    return solutions.select([pl.col(v).cast(pl.String) for v in variables]).with_columns(
        pl.lit(close, pl.Int64).alias(CLOSE), pl.lit(version, pl.Int64).alias(VERSION))


def replace_from(home: Home, view: str, query: QueryDecl, rows: pl.DataFrame, close: int) -> None:
    """``rows`` (all at ``close``) in place of every row at ``close`` or later, in one commit."""
    replace_rows_from(home, path(home, view, query), rows, close)


def replace_rows_from(home: Home, where: str, rows: pl.DataFrame, close: int) -> None:
    """``replace_from`` for the answer table at ``where`` (a registered query's, or an RSP-QL
    query's: ``engine.jobs.rspql``); its columns: strings, then ``close`` and optionally ``view_version``."""
    predicate = f"{CLOSE} >= {int(close)}"
    if not _written_here(home, where, rows, predicate):
        _written_by_spark(home, where, rows, predicate)


def _written_here(home: Home, where: str, rows: pl.DataFrame, predicate: str) -> bool:
    """The commit written by delta-rs in this process; False where Spark must write it."""
    mode = access.of(home.spark, where)
    folder = mode.folder(where)
    if folder is None or not mode.writes_here:
        return False
    # imported when called: it loads deltalake
    import deltalake
    from deltalake import CommitProperties, write_deltalake

    mark = session_marks.mark_of(home.spark)
    properties = CommitProperties(custom_metadata={"userMetadata": mark} if mark else None)
    if not deltalake.DeltaTable.is_deltatable(str(folder)):
        write_deltalake(str(folder), rows.to_arrow(), mode="append", commit_properties=properties)
        return True
    table = deltalake.DeltaTable(str(folder))
    if [f.name for f in table.schema().fields] != rows.columns:
        return False  # the query's variables changed: Spark merges the new columns in
    write_deltalake(table, rows.to_arrow(), mode="overwrite", predicate=predicate, commit_properties=properties)
    return True


def _written_by_spark(home: Home, where: str, rows: pl.DataFrame, predicate: str) -> None:
    schema = ", ".join(f"`{c}` {'BIGINT' if c in (CLOSE, VERSION) else 'STRING'}" for c in rows.columns)
    writer = to_spark(home.spark, rows, schema).write.format("delta").option("mergeSchema", "true")
    if table_log.is_delta(home.spark, where):
        writer = writer.mode("overwrite").option("replaceWhere", predicate)
    else:
        writer = writer.mode("append")
    writer.save(where)


def exists(home: Home, view: str, query: QueryDecl) -> bool:
    return table_log.is_delta(home.spark, path(home, view, query))


def rows_per_close(home: Home, view: str, query: QueryDecl) -> dict[int, int]:
    """How many rows the query streamed out at each close that has any (none: no table yet)."""
    # imported when called: it loads pyarrow, rdflib
    from reasonlake.engine.store import driver_reads

    where = path(home, view, query)
    if not exists(home, view, query):
        return {}
    counted = driver_reads.answer(home.spark, {"q": (where, None)},
                                  f"SELECT {CLOSE}, count(*) AS n FROM {{q}} GROUP BY {CLOSE}")
    return dict(zip(counted.column(CLOSE).to_pylist(), counted.column("n").to_pylist()))


def sql(home: Home, view: str, query: QueryDecl, record) -> str:
    """The query's rows up to the published close ``record``, as SQL (its catalog name and
    `reasonlake sql`'s): close as a timestamp, view_version, then the variables. A close
    that stopped before recording itself may have written rows past it; they stay hidden
    until the close is redone, which replaces them."""
    variables = "".join(f", `{v}`" for v in query.variables)
    return (f"SELECT timestamp_millis({CLOSE}) AS {CLOSE}, {VERSION}{variables} "
            f"FROM delta.`{path(home, view, query)}` WHERE {CLOSE} <= {int(record.close)}")
