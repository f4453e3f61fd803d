"""One writing process at a time on a home on object storage (``s3a://``; decision 0038).

Delta's commits from Spark go through its S3 log store (``S3SingleDriverLogStore``), which
keeps two commits of one JVM apart but not two processes: S3 has no atomic rename, and that
log store writes a commit file without a put-if-absent, so two processes committing the same
version of a table both succeed and one commit is lost. The per-view leases
(``lease``) are Delta rows committed the same way, so they cannot keep processes apart
there either. What can: delta-rs, which commits to S3 with a conditional put
(``If-None-Match: *``), so of two commits of one version exactly one succeeds.

So a command that writes an object-store home first takes the home's claim: one row in
a small Delta table ``_writer`` of the home, replaced through delta-rs only as the very next
version (a compare-and-set), naming this process, the command and until when it holds.
Another process finds it held and stops with ``WriterBusyError`` (RL410) naming the holder,
or waits for it with ``--wait``. The claim lasts a lease (``REASONLAKE_LEASE_SECONDS``) and
a thread renews it while the command runs; a holder killed on this machine is taken over at
once (its process is gone), one killed elsewhere after a lease. A home in a local folder or
on a file system with an atomic rename needs none of this (Delta's own log stores are safe
there) and takes no claim.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import pyarrow as pa

from reasonlake.engine.store import object_store
from reasonlake.engine.store.lease import HOLDER, Holder, lease_ms
from reasonlake.errors import WriterBusyError

TABLE = "_writer"
_SCHEMA = pa.schema([("holder", pa.string()), ("since", pa.int64()), ("until", pa.int64()), ("command", pa.string())])
# root -> [depth, renewing thread's stop event]: a command that writes inside another's claim
_HELD: dict[str, list] = {}
_LOCK = threading.Lock()


def needed(root: str) -> bool:
    return object_store.is_object_store(root)


@contextmanager
def writing(root: str, command: str, wait: float = 0.0):
    """Hold the home's claim while the block runs (nothing on a home that needs none)."""
    if not needed(root):
        yield
        return
    with _LOCK:
        held = _HELD.get(root)
        if held is not None:
            held[0] += 1
    if held is None:
        _take(root, command, wait)
        stop = threading.Event()
        threading.Thread(target=_renew, args=(root, command, stop), daemon=True, name="reasonlake-claim").start()
        with _LOCK:
            _HELD[root] = held = [1, stop]
    try:
        yield
    finally:
        with _LOCK:
            held[0] -= 1
            last = held[0] == 0
            if last:
                _HELD.pop(root, None)
        if last:
            held[1].set()
            _swap(root, lambda row: None if row is None or row["holder"] != HOLDER else {})


def _options() -> dict:
    return object_store.storage_options(object_store.settings())


def _path(root: str) -> str:
    return f"{root}/{TABLE}"


def _take(root: str, command: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        now = int(time.time() * 1000)
        busy: list[Holder] = []

        def take(row):
            if row and row["holder"] not in (HOLDER, "") and row["until"] >= now:
                holder = Holder(row["holder"], row["since"], row["until"], row["command"])
                if not holder.gone():
                    busy.append(holder)
                    return None
            return {"holder": HOLDER, "since": now, "until": now + lease_ms(), "command": command}

        if _swap(root, take) and not busy:
            return
        if busy and time.monotonic() >= deadline:
            h = busy[0]
            since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(h.since / 1000))
            raise WriterBusyError(
                f"{root}: another process writes this home (`{h.command}`, process {h.pid} on {h.host}, since "
                f"{since}): a home on object storage has one writing process at a time; run the command when it "
                "ends, or give --wait SECONDS")
        time.sleep(1.0)


def _renew(root: str, command: str, stop: threading.Event) -> None:
    while not stop.wait(lease_ms() / 3000):
        now = int(time.time() * 1000)
        try:
            _swap(root, lambda row: {**row, "until": now + lease_ms()} if row and row["holder"] == HOLDER else None)
        except Exception:  # a failed renewal is retried at the next turn, the claim lasts a lease
            pass


def _swap(root: str, change) -> bool:
    """Replace the claim's row by ``change(row)`` (row: a dict, None for no row; returns the
    new row, {} for none, None to leave it) as the very next version of ``_writer``: False when
    another process committed first (the caller reads again), True otherwise."""
    # imported when called: it loads deltalake
    import deltalake  # delta-rs (named in full: Delta's own Python builder has a class of the same name)
    from deltalake.exceptions import CommitFailedError, TableNotFoundError

    options = _options()
    try:
        table = deltalake.DeltaTable(_path(root), storage_options=options)
        rows = table.to_pyarrow_table().to_pylist()
    except TableNotFoundError:
        table, rows = None, []
    new = change(rows[0] if rows else None)
    if new is None:
        return True
    data = pa.Table.from_pylist([new] if new else [], schema=_SCHEMA)
    try:
        if table is None:  # the first claim makes the table: version 0, put only if absent
            deltalake.write_deltalake(_path(root), data, mode="error", storage_options=options)
        else:
            deltalake.write_deltalake(table, data, mode="overwrite",
                                      commit_properties=deltalake.CommitProperties(max_commit_retries=0))
    except CommitFailedError:
        return False
    except Exception as exc:  # two first claims: the table is there now
        if "already exists" in str(exc).lower() or "version 0" in str(exc).lower():
            return False
        raise
    return True
