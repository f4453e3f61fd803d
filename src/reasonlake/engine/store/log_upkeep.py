"""Delta checkpoints of a local home's tables, written after the store's commits rather than
inside them.

Delta's writer checkpoints a table inside the commit whose version is a multiple of
``delta.checkpointInterval`` (10 unless set): before answering, that commit rebuilds the
table's whole state with Spark jobs and writes it, 1.0-1.4 s for a table of a few rows
(2 cores), paid by whichever close, ingest or runner batch made the commit (one batch in
three or four of a streaming runner). On a local home the small system tables written at
every ingest and close carry an interval of 1000 (migration 0007), and the store writes
their checkpoints itself, by delta-rs, once ``EVERY`` commits have gone by since the last
one: about 20 ms in the driver, no Spark job. Delta's own interval stays as the bound
should this upkeep not run (a writer other than reasonlake).

A checkpoint only shortens a reader's replay of the log: the commit before it stands
whatever happens here, so a failure to write one is logged and left to the next commit.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

from reasonlake.engine.store.locations import local_path
from reasonlake.engine.store.small_tables import commit_versions

EVERY = 10  # commits between checkpoints, Delta's own default interval
# the interval at or above which a table's checkpoints are left to this module (migration 0007)
OURS_FROM = 1000
_CLEAN_EVERY = 100  # versions between cleanups of expired log files (as Delta does at a checkpoint)

_log = logging.getLogger(__name__)


def tend(path: str, version: int | None = None) -> int | None:
    """Checkpoint the table at ``path`` (a local folder) if ``EVERY`` commits or more went by
    since its last checkpoint and its interval leaves checkpoints to the store. ``version``:
    the commit just made, when the caller knows it. Returns the version checkpointed, None
    when nothing was written."""
    folder = local_path(path)
    if folder is None:
        return None
    log = folder / "_delta_log"
    if version is None:
        version = max(commit_versions(log), default=None)
    if version is None or version - _last_checkpoint(log) < EVERY:
        return None
    try:
        return _checkpoint(folder)
    except Exception as exc:  # noqa: BLE001 - an upkeep failure never undoes the commit
        _log.warning("no checkpoint of %s at version %s: %s", path, version, exc)
        return None


def _checkpoint(folder: Path) -> int | None:
    # imported when called: it loads deltalake
    import deltalake

    table = deltalake.DeltaTable(str(folder))
    interval = table.metadata().configuration.get("delta.checkpointInterval")
    if interval is None or int(interval) < OURS_FROM:  # Delta's writer checkpoints this one
        return None
    table.create_checkpoint()
    version = int(table.version())
    if version // EVERY % (_CLEAN_EVERY // EVERY) == 0:
        # what Delta's checkpoint does besides: commit files older than the table's
        # ``delta.logRetentionDuration`` (30 days) and before the checkpoint go
        table.cleanup_metadata()
    return version


def _last_checkpoint(log: Path) -> int:
    try:
        return int(json.loads((log / "_last_checkpoint").read_text())["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return -1

