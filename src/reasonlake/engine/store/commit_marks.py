"""Appends made idempotent by a mark on their commit instead of Delta's ``txnAppId``.

``txnAppId``/``txnVersion`` make a repeated append a no-op, but Delta checks them by asking
the table's whole log state for its transactions: a state reconstruction (Spark jobs) at
every write, 0.5-0.6 s for each of a repair close's two appends (tombstones, repair log) on
a 1M-triple window. A view has one writer at a time (decision 0009) and a close writes one
commit per table, so the commit can carry its close's sequence number in Delta's
``userMetadata`` (shown by ``DESCRIBE HISTORY`` too), and a retried close reads the last few
commit files of the log, newest first, down to the first marked one: no Spark job.
"""
from __future__ import annotations

from reasonlake.engine.store import classic

PREFIX = "reasonlake seq="
# Unmarked commits read before giving up on the log (expiry deletes come between marked
# appends; more than this many in a row and the caller lets Delta check instead).
LOOKBACK = 16


def mark(seq: int) -> str:
    """The ``userMetadata`` of a commit written for sequence number ``seq``."""
    return f"{PREFIX}{seq}"


def written(spark, path: str, seq: int) -> bool | None:
    """Whether the table has a commit marked for ``seq``; None when the log
    cannot tell (no JVM, an API this Delta build lacks, more than ``LOOKBACK`` expiries in a
    row, an unmarked write or a restore in between, or a later sequence's mark): the caller
    falls back to ``txnAppId``."""
    try:
        snapshot = classic.snapshot(spark, path)
        if snapshot is None:
            return None
        latest = snapshot.version()
        for version in range(latest, max(-1, latest - LOOKBACK), -1):
            seen = _marked_seq(classic.changes(spark, path, version, version))
            if seen is _CREATED:
                return False
            if seen is _UNSURE:
                return None
            if seen is not None:
                # a later sequence: someone took the view back (a restore); Delta decides
                return True if seen == seq else False if seen < seq else None
        return None
    except Exception:  # no JVM (Spark Connect) or another Delta build: let Delta check
        return None


_CREATED = object()  # the table's creation: nothing was written before it
_UNSURE = object()  # an unmarked write (an older release's append) or a restore


def _marked_seq(changes):
    """The sequence a commit is marked with; None: an unmarked expiry (DELETE), passed over."""
    if not changes.hasNext():
        return None
    actions = changes.next()._2().iterator()
    while actions.hasNext():  # Delta writes the commit info first: one action read
        action = actions.next()
        if action.getClass().getSimpleName() == "CommitInfo":
            text = action.userMetadata().getOrElse(None) if action.userMetadata().isDefined() else None
            if text and text.startswith(PREFIX) and text[len(PREFIX):].isdigit():
                return int(text[len(PREFIX):])
            operation = action.operation()
            return None if operation == "DELETE" else _CREATED if operation.startswith("CREATE") else _UNSURE
    return _UNSURE


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
