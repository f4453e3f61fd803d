"""The home's small system tables (``_migrations``, ``views``, ``view_state``, ``settings``)
read in this process from their files, without Spark: what the access modes that see a
home's folder (``access.local_files``) answer from it.

A command's first Delta read through Spark in a fresh JVM costs seconds (16 s measured for
a three-row table: the log, the scan's planning, the first job), and over Spark Connect each
read is a call to the server; yet these tables hold a few rows in a file or two. Delta keeps
beside each commit a checksum (``<version>.crc``) that, for a table of at most 50 files,
lists every file of that version (``allFiles``), so the rows of the latest version are a
directory listing, one JSON file and a few Parquet files away. Where the checksum lists no
files (a ``view_state`` past some fifty closes, a commit delta-rs wrote), delta-rs replays
the log (the last checkpoint and the commits after it) to list them: a home keeps this
reader however many closes it has processed.

Anything this reader does not know to be plain is left to Spark (``None``): a log neither
reader can list, partition columns, deletion vectors, column mapping, files elsewhere, types
other than flat ones. Rows come back as Spark's ``collect`` gives them (``Row``s,
timestamps as naive local times), columns a file lacks (added by a migration after it was
written) as nulls.
"""
from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:  # pyspark is optional (the base wheel): Rows are made only where a session asked
    from pyspark.sql import Row

_COMMIT = re.compile(r"^(\d{20})\.json$")
_FLAT = {"string", "long", "integer", "short", "byte", "double", "float", "boolean", "timestamp", "date"}


def rows(folder: Path, columns: list[str] | None = None) -> list[Row] | None:
    """The rows at the latest commit of the table in ``folder`` (``columns`` of them, in
    that order), or None where Spark must read it. Raises FileNotFoundError when there is no
    table there."""
    log = folder / "_delta_log"
    latest = max(commit_versions(log), default=None)
    if latest is None:
        if folder.exists() and any(folder.iterdir()):
            return None  # something there that is not (yet) a table we can name: Spark says what
        raise FileNotFoundError(str(folder))
    state = _state_from_checksum(log, latest) or _state_from_delta_rs(folder, latest)
    if state is None:
        return None
    files, meta, fields = state["allFiles"], state["metadata"], state["fields"]
    if meta.get("partitionColumns") or any(k.startswith("delta.columnMapping") for k in meta.get("configuration") or {}):
        return None
    if any(f.get("deletionVector") or urlparse(f["path"]).scheme for f in files) or len(files) != state.get("numFiles"):
        return None
    types = {f["name"]: f["type"] for f in fields}
    if any(not isinstance(t, str) or t not in _FLAT for t in types.values()):
        return None
    wanted = columns or [f["name"] for f in fields]
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql import Row

    return [Row(**dict(zip(wanted, values))) for values in _read(folder, files, wanted, types)]


def _state_from_checksum(log: Path, version: int) -> dict | None:
    """The files, metadata and fields of ``version`` from its checksum; None where it does
    not list them: no checksum (delta-rs, ``rs_commit``, writes none), or a table of more
    files than Delta lists there (above 50: a ``view_state`` after some fifty closes), or a
    checksum still being written."""
    try:
        state = json.loads((log / f"{version:020d}.crc").read_text())
        meta = state["metadata"]
        return {"allFiles": state["allFiles"], "numFiles": state.get("numFiles"), "metadata": meta,
                "fields": json.loads(meta["schemaString"])["fields"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _state_from_delta_rs(folder: Path, version: int) -> dict | None:
    """What the checksum would say of ``version`` (files, metadata, fields), from delta-rs's
    replay of the log (checkpoint and commits); None where it cannot say, or where the
    table may hold deletion vectors (its protocol names them): its file list alone would
    read the rows they hide."""
    try:
        # imported when called: it loads deltalake, pyarrow
        import deltalake
        import pyarrow as pa

        table = deltalake.DeltaTable(str(folder), version=version)
        if "deletionVectors" in (table.protocol().reader_features or ()):
            return None
        meta = table.metadata()
        paths = pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()
        return {"allFiles": [{"path": p} for p in paths], "numFiles": len(paths),
                "metadata": {"partitionColumns": list(meta.partition_columns), "configuration": dict(meta.configuration)},
                "fields": json.loads(table.schema().to_json())["fields"]}
    except Exception:  # anything delta-rs does not read: Spark reads it
        return None


def _read(folder: Path, files: list[dict], columns: list[str], types: dict[str, str]):
    # imported when called: it loads pyarrow
    import pyarrow.parquet as pq

    def columns_of(entry: dict):
        with pq.ParquetFile(folder / unquote(entry["path"])) as parquet:
            return parquet.read(columns=[c for c in columns if c in parquet.schema_arrow.names])

    # view_state gains a file per close: hundreds of small files, read side by side (pyarrow
    # leaves the GIL while it reads), 4 times faster than one after the other
    with ThreadPoolExecutor(max_workers=8) as pool:
        tables = list(pool.map(columns_of, files))
    for table in tables:
        present = set(table.column_names)
        data = {c: table.column(c).to_pylist() if c in present else [None] * table.num_rows for c in columns}
        for i in range(table.num_rows):
            yield tuple(_as_spark(data[c][i], types[c]) for c in columns)


def _as_spark(value, kind: str):
    """A value as Spark's ``collect`` gives it: a timestamp as a naive local time."""
    if hasattr(value, "to_pydatetime"):  # Spark's INT96 timestamps come back in nanoseconds
        value = value.to_pydatetime()
    if kind == "timestamp" and isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return aware.astimezone().replace(tzinfo=None)
    return value


def latest_commit(folder: Path) -> tuple[int, int] | None | bool:
    """The latest commit of the table in ``folder`` as (version, the modification time of
    its log file in ms: Delta's own commit timestamp on a local file system) from a listing
    of its log; None where there is no table; False where the listing cannot tell (its
    latest commit file cleaned up under us)."""
    latest = max(commit_versions(folder / "_delta_log"), default=None)
    if latest is None:
        return None
    try:
        return latest, (folder / "_delta_log" / f"{latest:020d}.json").stat().st_mtime_ns // 1_000_000
    except FileNotFoundError:  # cleaned up under us: let Delta say
        return False


def commit_versions(log: Path) -> list[int]:
    """The versions of the commit files in a ``_delta_log`` folder (none: no such folder)."""
    try:
        return [int(m.group(1)) for m in map(_COMMIT.match, os.listdir(log)) if m]
    except (FileNotFoundError, NotADirectoryError):
        return []


def history(folder: Path, limit: int | None = None) -> list[Row] | None:
    """``DESCRIBE HISTORY``'s version, timestamp, operation, operationParameters and userMetadata, newest
    first (at most ``limit``), from the commit files in the log of the table in ``folder``
    (the timestamp is the file's, as Delta takes it); None where the log cannot be read so."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql import Row

    log = folder / "_delta_log"
    found = []
    for version in sorted(commit_versions(log), reverse=True)[:limit]:
        entry = log / f"{version:020d}.json"
        try:
            info = _commit_info(entry)
            moment = entry.stat().st_mtime_ns // 1_000_000
        except (OSError, ValueError):
            return None  # cleaned up under us: let Delta answer
        if info is None:
            return None
        found.append(Row(version=version, timestamp=datetime.fromtimestamp(moment / 1000, timezone.utc),
                         operation=info.get("operation"), operationParameters=_as_strings(info.get("operationParameters")),
                         userMetadata=info.get("userMetadata")))
    return found or None


def _as_strings(parameters: dict | None) -> dict[str, str]:
    """Operation parameters as ``DESCRIBE HISTORY`` shows them: the log keeps some as JSON
    numbers and booleans, the history as their JSON text."""
    return {k: v if v is None or isinstance(v, str) else json.dumps(v) for k, v in (parameters or {}).items()}


def _commit_info(entry: Path) -> dict | None:
    """A commit file's commitInfo: Delta writes it first, so one line is read, not the
    commit's file actions."""
    with entry.open() as lines:
        for line in lines:
            if line.startswith('{"commitInfo"'):
                return json.loads(line)["commitInfo"]
    return None
