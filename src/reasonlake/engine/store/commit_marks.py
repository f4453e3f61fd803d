"""Appends made idempotent by a mark on their commit instead of Delta's ``txnAppId``.

``txnAppId``/``txnVersion`` make a repeated append a no-op, but Delta checks them by asking
the table's whole log state for its transactions: a state reconstruction (Spark jobs) at
every write, 0.5-0.6 s for each of a repair close's two appends (tombstones, repair log) on
a 1M-triple window. A view has one writer at a time (decision 0009) and a close writes one
commit per table, so the commit can carry its close's sequence number in Delta's
``userMetadata`` (shown by ``DESCRIBE HISTORY`` too), and a retried close reads the last few
commits of the log, newest first, down to the first marked one: from the commit files on a
local home, Delta's classes on a classic session (no Spark job), the history elsewhere.
"""
from __future__ import annotations

from reasonlake.engine.store import access

PREFIX = "reasonlake seq="
# Unmarked commits read before giving up on the log (expiry deletes come between marked
# appends; more than this many in a row and the caller lets Delta check instead).
LOOKBACK = 16


def mark(seq: int) -> str:
    """The ``userMetadata`` of a commit written for sequence number ``seq``."""
    return f"{PREFIX}{seq}"


def written(spark, path: str, seq: int) -> bool | None:
    """Whether the table has a commit marked for ``seq``; None when the log
    cannot tell (more than ``LOOKBACK`` expiries in a row, an unmarked write or a restore in
    between, a later sequence's mark, a log the home's access mode cannot read): the caller
    falls back to ``txnAppId``."""
    try:
        mode = access.of(spark, path)
        latest = mode.latest_commit(path)
        if latest is None:
            return None
        newest_first = reversed(mode.commits(path, max(0, latest[0] - LOOKBACK + 1), latest[0]))
        for _version, operation, _when, note, _data in newest_first:
            seen = _marked_seq(operation, note)
            if seen is _CREATED:
                return False
            if seen is _UNSURE:
                return None
            if seen is not None:
                # a later sequence: someone took the view back (a restore); Delta decides
                return True if seen == seq else False if seen < seq else None
        return None
    except Exception:  # a log this Delta build or session cannot read: let Delta check
        return None


_CREATED = object()  # the table's creation: nothing was written before it
_UNSURE = object()  # an unmarked write (an older release's append) or a restore


def _marked_seq(operation: str, note: str | None):
    """The sequence a commit is marked with; None: an unmarked expiry (DELETE), passed over."""
    if note and note.startswith(PREFIX) and note[len(PREFIX):].isdigit():
        return int(note[len(PREFIX):])
    return None if operation == "DELETE" else _CREATED if operation.startswith("CREATE") else _UNSURE


def append(frame, path: str, seq: int, app_id: str) -> bool | None:
    """Append ``frame`` as the commit of ``seq`` unless that commit is already there.
    Returns whether it wrote; None where Delta's transaction check decided (the log could
    not tell), which may have found the commit there and written nothing."""
    done = written(frame.sparkSession, path, seq)
    if done:
        return False
    writer = frame.write.format("delta").mode("append").option("userMetadata", mark(seq))
    if done is None:  # the log could not tell: Delta's transaction check decides
        writer = writer.option("txnAppId", app_id).option("txnVersion", seq)
    writer.save(path)
    return None if done is None else True


def replace(frame, path: str, seq: int) -> None:
    """Put ``frame`` in place of the rows of ``seq`` in one commit marked for ``seq``. An
    UPDATE would commit unmarked, and ``written`` could then no longer tell the rows there,
    so a later retry would append them again."""
    (frame.write.format("delta").mode("overwrite").option("replaceWhere", f"seq = {int(seq)}")
     .option("userMetadata", mark(seq)).save(path))
