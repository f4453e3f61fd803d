"""The driver's commits through delta-rs, for a session with no JVM in this process.

Over Spark Connect the driver has no Delta classes to commit with (``arrow_commit``), so
each of a close's commits would be a Spark write run by the server: a job, statistics,
the commit, 0.2-1.2 s each, several per close (the lease, the panes, the record), where
the classic driver commits in milliseconds. When the server is on this machine (the
loopback address) and the home is a local folder, this process writes the files and
commits them itself with delta-rs (``deltalake``, already this process's Delta reader:
decision 0029), as ``arrow_commit`` does with Delta's own classes: 0.02-0.04 s a commit.

The same limits as ``arrow_commit``: a table whose settings or columns ask more of a
writer than writing its rows is left to Spark (``Unusable``), as is one whose protocol
names writer features other than deletion vectors, invariants and append-only (delta-rs
writes these; it carries a removed file's deletion vector in its ``remove``). The commits
carry the session's reasonlake mark (``session_marks``) as ``userMetadata``. A
compare-and-set (``rewrite_small``) commits with no retry, so any commit since the read
makes it fail (``CommitFailedError``, a race the caller retries); appends are rebased by
delta-rs over other appends as Delta does. delta-rs writes no checksum file beside its
commits, so ``small_tables`` lists such a version's files with delta-rs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from reasonlake.engine.store import log_upkeep, session_marks
from reasonlake.engine.store.arrow_tables import TYPES, Unusable, checked_fields, outside_partitions, typed
from reasonlake.engine.store.locations import local_path

# what delta-rs writes correctly among the writer features of a table Spark created
_WRITER_FEATURES = {"deletionVectors", "invariants", "appendOnly"}


@dataclass
class _Table:
    folder: Path
    table: object  # deltalake.DeltaTable at its latest version
    fields: list[dict]
    partitions: list[str]


def _open(spark, path: str) -> _Table:
    folder = local_path(path)
    if folder is None:
        raise Unusable(f"{path} is not a local folder")
    try:
        # imported when called: it loads deltalake
        import deltalake
        from deltalake.exceptions import TableNotFoundError
    except ImportError:
        raise Unusable("no delta-rs") from None
    try:
        table = deltalake.DeltaTable(str(folder))
    except TableNotFoundError:
        raise Unusable(f"{path} is not a Delta table yet") from None
    protocol = table.protocol()
    features = set(protocol.writer_features or ())
    legacy = protocol.min_writer_version <= 2 and protocol.min_reader_version <= 1
    if not (legacy or (protocol.min_writer_version == 7 and features <= _WRITER_FEATURES)) \
            or set(protocol.reader_features or ()) - {"deletionVectors"}:
        raise Unusable(f"{path}: protocol {protocol.min_reader_version}/{protocol.min_writer_version} "
                       f"with features {sorted(features)}")
    meta = table.metadata()
    fields = checked_fields(path, list(meta.configuration), json.loads(table.schema().to_json())["fields"])
    return _Table(folder, table, fields, list(meta.partition_columns))


def _write(spark, table: _Table, frame: pl.DataFrame, mode: str, *, predicate: str | None = None,
           txn: tuple[str, int] | None = None, retries: int | None = None, user_metadata: str | None = None) -> int:
    # imported when called: it loads deltalake
    from deltalake import CommitProperties, Transaction, write_deltalake

    mark = user_metadata or session_marks.mark_of(spark)
    properties = CommitProperties(
        custom_metadata={"userMetadata": mark} if mark else None, max_commit_retries=retries,
        app_transactions=[Transaction(txn[0], txn[1])] if txn is not None else None)
    write_deltalake(table.table, frame.to_arrow(), mode=mode, predicate=predicate,
                    partition_by=table.partitions or None, commit_properties=properties)
    version = int(table.table.version())
    log_upkeep.tend(str(table.folder), version)
    return version


def append(spark, path: str, frame: pl.DataFrame, *, txn: tuple[str, int] | None = None) -> int | None:
    """``arrow_commit.append`` through delta-rs."""
    table = _open(spark, path)
    if txn is not None and (table.table.transaction_version(txn[0]) or -1) >= txn[1]:
        return None
    rows = typed(table, frame)
    if rows.is_empty() and txn is None:
        return None
    return _write(spark, table, rows, "append", txn=txn)


def replace_partitions(spark, path: str, frame: pl.DataFrame, *, column: str, replaced, predicate: str | None,
                       user_metadata: str | None = None) -> int:
    """``arrow_commit.replace_partitions`` through delta-rs: an overwrite with the
    partition predicate, which removes those partitions' files whole (None: all of them)."""
    table = _open(spark, path)
    rows = typed(table, frame)
    outside_partitions(table, rows.get_column(column).unique().to_list(), path, column, replaced, predicate)
    return _write(spark, table, rows, "overwrite", predicate=predicate, user_metadata=user_metadata)


def rewrite_small(spark, path: str, change):
    """``arrow_commit.rewrite_small`` through delta-rs: the rows read at the latest
    version, their replacement committed only as the very next version."""
    table = _open(spark, path)
    if table.partitions:
        raise Unusable(f"{path} is partitioned")
    try:
        found = pl.from_arrow(table.table.to_pyarrow_table())
    except Exception as exc:  # deletion vectors: delta-rs's Arrow reader refuses them
        raise Unusable(f"{path}: {exc}") from None
    schema = {f["name"]: TYPES[f["type"]] for f in table.fields}
    new, answer = change(found.select(list(schema)).cast(schema))
    if new is not None:
        _write(spark, table, typed(table, new), "overwrite", retries=0)
    return answer
