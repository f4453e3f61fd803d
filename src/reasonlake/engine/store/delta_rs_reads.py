"""SQL over Delta tables in folders of this machine, run by delta-rs (``deltalake``) and its
DataFusion engine in this process: no JVM, no Spark job (decision 0029).

It reads the log (checkpoints, partition values and deletion vectors included) and runs the
query here, so the rows are held in the driver's memory: tables whose files hold more than
the caller's budget are left to Spark (None), as is any table or feature delta-rs refuses
(the error is not the user's: Spark then reads, and says what is wrong).
"""
from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq

log = logging.getLogger(__name__)


def query(tables: dict[str, tuple[Path, int | None]], sql: str, max_bytes: int) -> pa.Table | None:
    """``sql`` (DataFusion's dialect) over ``tables`` (name -> (folder, version or None for
    the latest)), or None where their files hold more than ``max_bytes`` or delta-rs
    refuses one of them."""
    try:
        # imported when called: it loads deltalake
        import deltalake  # delta-rs: no JVM (named in full: Delta's own Python builder has the same class name)

        opened = {name: deltalake.DeltaTable(str(folder), version=version)
                  for name, (folder, version) in tables.items()}
        size = sum(sum(pa.table(t.get_add_actions(flatten=True)).column("size_bytes").to_pylist())
                   for t in opened.values())
        if size > max_bytes:
            return None
        builder = deltalake.QueryBuilder()
        for name, table in opened.items():
            builder = builder.register(name, table)
        return pa.table(builder.execute(sql).read_all())
    except Exception as exc:  # a feature or version delta-rs refuses: Spark reads
        log.debug("read through Spark: %s", exc)
        return None


def data_files(folder: Path) -> dict[str, int] | None:
    """The data files of the table's latest version (path relative to ``folder`` -> bytes),
    where a reader needs nothing but those Parquet files (reader version 1: no deletion
    vectors, no column mapping); None where delta-rs refuses the table or its readers need
    more."""
    try:
        # imported when called: it loads deltalake
        import deltalake  # delta-rs: no JVM (named in full: Delta's own Python builder has the same class name)

        table = deltalake.DeltaTable(str(folder))
        if table.protocol().min_reader_version > 1:
            return None
        adds = pa.table(table.get_add_actions(flatten=True))
    except Exception as exc:  # a feature or version delta-rs refuses: the caller reads otherwise
        log.debug("data files not listed here: %s", exc)
        return None
    return dict(zip(adds.column("path").to_pylist(), adds.column("size_bytes").to_pylist()))


def read_files(folder: Path, paths: list[str], columns: list[str]) -> list[pa.Table]:
    """``columns`` of the data files ``paths`` (as ``data_files`` names them)."""
    return [pq.read_table(folder / unquote(path), columns=columns) for path in paths]


def open_table(folder: Path):
    """The Delta table in ``folder`` at its latest version as delta-rs opens it, or None
    where delta-rs refuses it (a feature or version it does not read)."""
    try:
        # imported when called: it loads deltalake
        import deltalake  # delta-rs: no JVM (named in full: Delta's own Python builder has the same class name)

        return deltalake.DeltaTable(str(folder))
    except Exception as exc:  # the caller reads otherwise
        log.debug("not opened here: %s", exc)
        return None


# Rows per batch of a streamed query: DataFusion's default (8k) makes a Python step per 8k
# rows; 64k keeps a scan of a million rows to a few dozen.
STREAM_BATCH_ROWS = 65_536


def stream(tables: dict, sql: str):
    """``sql`` over ``tables`` (name -> an ``open_table``) as a stream of Arrow record
    batches, run as they are read (a scan held one batch at a time, not the whole result)."""
    # imported when called: it loads deltalake
    import deltalake

    builder = deltalake.QueryBuilder({"datafusion.execution.batch_size": str(STREAM_BATCH_ROWS)})
    for name, table in tables.items():
        builder = builder.register(name, table)
    for batch in builder.execute(sql):
        yield pa.record_batch(batch)
