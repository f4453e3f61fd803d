"""A view's table and the term dictionary read in this process, without Spark, where the
home is a local folder and the tables are small enough (decision 0029).

`export` and `sql` read the view's table and decode its ids. Through Spark that is the
first read of two Delta tables in the command's JVM: the logs replayed, the scans planned,
a join and a sort run as jobs, 12-15 s in a fresh embedded session, a second or more per
call over a Spark Connect server. The same read through delta-rs (``deltalake``) and its
DataFusion engine takes a fraction of a second: it reads the log (checkpoints, partition
values and deletion vectors included) and runs the join in this process.

None is returned, and the caller reads through Spark, wherever this reader cannot be
trusted to see what Spark sees: a home whose access mode does not read its files here (not
a local folder, or a session that does not see this machine's files: ``access``), tables larger than
``REASONLAKE_DRIVER_READ_MB`` (default 128 MB of Parquet together: the rows are held
in the driver's memory),
and any table or feature delta-rs refuses (the error is not the user's: Spark then reads).
"""
from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from reasonlake import settings
from reasonlake.engine.store import access
from reasonlake.engine.store import view_decoding as decoding


def limit_bytes() -> int:
    return int(settings.number("REASONLAKE_DRIVER_READ_MB") * 1024 * 1024)


def query(spark, tables: dict[str, tuple[str, int | None]], sql: str, *,
          max_bytes: int | None = None) -> pa.Table | None:
    """``sql`` (DataFusion's dialect) over ``tables`` (name -> (path, version or None for
    the latest)), or None where Spark must read them, or where their files hold more than
    ``max_bytes`` (``limit_bytes()`` unless given). The tables are one home's: its access
    mode reads them (``access``)."""
    first = next(iter(tables.values()))[0]
    return access.of(spark, first).query(tables, sql, limit_bytes() if max_bytes is None else max_bytes)


def answer(spark, tables: dict[str, tuple[str, int | None]], sql: str, *,
           max_bytes: int | None = None) -> pa.Table:
    """``sql`` over ``tables`` (name -> (path, version or None)), each named ``{name}`` in
    it, in the SQL both engines speak: always answered, by this process where it may read
    the tables (``query``), else by Spark (``access.Access.answer``). For small answers."""
    first = next(iter(tables.values()))[0]
    return access.of(spark, first).answer(tables, sql, limit_bytes() if max_bytes is None else max_bytes)


def here(spark, tables: dict[str, tuple[str, int | None]], render, *, max_bytes: int | None = None) -> pa.Table | None:
    """The rows of the SQL ``render(dialect)`` makes over ``tables`` (each named ``{name}``
    in it; ``view_decoding``'s dialects) read by DataFusion in this process, the hidden-term
    test it selected (``view_decoding.hidden_test``) applied; None where the access mode
    does not read them here, or past ``max_bytes`` (``limit_bytes()`` unless given)."""
    found = query(spark, tables, render(decoding.DATAFUSION).format(**{name: name for name in tables}),
                  max_bytes=max_bytes)
    if found is None or decoding.VISIBLE[0] not in found.column_names:
        return found
    return decoding.visible_rows(found)


def rows(spark, tables: dict[str, tuple[str, int | None]], render) -> pa.Table:
    """``here``'s rows, always answered as Arrow: read here where the access mode may, else
    by Spark, collected. For what the driver holds anyway."""
    found = here(spark, tables, render)
    return found if found is not None else frame(spark, tables, render).toArrow()


def frame(spark, tables: dict[str, tuple[str, int | None]], render, *, local=None):
    """The SQL ``render(dialect)`` makes over ``tables`` (each named ``{name}`` in it) as a
    Spark frame: planned, never collected, for reads that may outgrow the driver. ``local``
    (a function from DataFusion's rows to Arrow in Spark's types, and the Spark schema):
    read in this process where the access mode may, within ``limit_bytes``, and handed to
    Spark as a local relation, for a one-shot question that need not wait for Spark's reads."""
    mode = access.of(spark, next(iter(tables.values()))[0])
    found = None if local is None else here(spark, tables, render)
    if found is not None:
        typed, schema = local
        return mode.spark.createDataFrame(typed(found), schema)
    return mode.spark.sql(render(decoding.SPARK), **mode.frames(tables))


def stream(spark, tables: dict[str, tuple[str, int | None]], render, columns: list[str]):
    """The rows (tuples of ``columns``) of the SQL ``render(dialect, names)`` makes over
    ``tables`` (``names``: how it must name each table): always answered, by DataFusion in
    this process where it may read them, else by Spark, streamed to the driver partition by
    partition (``view_decoding``'s dialects)."""
    mode = access.of(spark, next(iter(tables.values()))[0])
    found = mode.query(tables, render(decoding.DATAFUSION, {name: name for name in tables}), limit_bytes())
    if found is not None:
        for batch in found.to_batches():
            yield from zip(*(batch.column(c).to_pylist() for c in columns))
        return
    yield from _by_spark(mode, tables, render(decoding.SPARK, {name: "{" + name + "}" for name in tables}), columns)


def _by_spark(mode, tables: dict[str, tuple[str, int | None]], text: str, columns: list[str]):
    """``text`` (Spark's SQL, each table named ``{name}``) over ``tables``, its rows as
    tuples of ``columns`` streamed to the driver partition by partition."""
    for row in mode.spark.sql(text, **mode.frames(tables)).toLocalIterator():
        yield tuple(row[c] for c in columns)


def view_values(home, view: str, version: int | None, at: int, column: str, order: str | None = None):
    """The values of one ``column`` (an expression with its alias, in the SQL both engines
    speak) of the view's rows live at close ``at`` in its table's ``version`` (None: the
    latest), as ``view_rows`` decodes them: always answered, by this process where it may
    read the tables, else by Spark over the same description (``view_decoding.select``),
    streamed to the driver partition by partition."""
    found = view_rows(home, view, version, at, column, order=order)
    if found is not None:
        for batch in found.to_batches():
            yield from batch.column(0).to_pylist()
        return
    sql = decoding.select(decoding.SPARK, home.view(view).window, at, table="{mat}", terms="{terms}",
                          columns=column, order=order)
    tables = {"mat": (home.mat_path(view), version), "terms": (home.path("terms"), None)}
    for (value,) in _by_spark(access.of(home.spark, home.mat_path(view)), tables, sql, [0]):
        yield value


def view_rows(home, view: str, version: int | None, at: int, columns: list[str] | str,
              order: str | None = None, where: str | None = None) -> pa.Table | None:
    """``columns`` (``view_decoding``'s, in DataFusion's dialect) of the view's rows live at
    close ``at`` in its table's ``version`` (None: the latest), decoded through the term
    dictionary, as Arrow (``where``: a condition on the table, aliased ``m``); None where
    Spark must read them (``view_read``'s description, planned by ``frame``)."""
    return here(home.spark, *view_read(home, view, version, at, columns, order=order, where=where))


def view_read(home, view: str, version: int | None, at: int, columns: list[str] | str | Callable,
              order: str | None = None, where: str | None = None):
    """(tables, render): the one description of ``view_rows``'s read, for ``here``,
    ``rows`` or ``frame`` (``columns``: ``view_decoding``'s select expressions, or a function
    of the dialect giving them)."""
    window = home.view(view).window
    tables = {"mat": (home.mat_path(view), version), "terms": (home.path("terms"), None)}
    return tables, lambda dialect: decoding.select(
        dialect, window, at, table="{mat}", terms="{terms}", columns=columns(dialect) if callable(columns) else columns,
        order=order, where=where)
