"""The materialization's file list, rebuilt by Delta in the background after our commit.

Every close removes files from the materialization (expired panes, the panes it writes
again), and to remove files Delta needs the table's file list at its latest commit: the
first `replaceWhere` or `DELETE` after a commit makes it rebuild that list from the log
(read the checkpoint and the commits since, deduplicate, aggregate: three Spark jobs,
0.4-0.5 s on 2 cores, whatever the table's size) before anything else. That rebuild
depends only on the commit, so it starts as soon as our commit is made, in a background
thread, while the close records itself and the next one admits and reasons; the next
close waits for it (``settle``) before it touches the table, and then finds the list
built. A failure here costs nothing: the next close's own Delta call builds the list.
"""
from __future__ import annotations

import threading

from reasonlake.spark import classic
from reasonlake.engine.store import process_cache
from reasonlake.engine.process.timing import step

JOB_GROUP = "reasonlake file list"


def rebuild_ahead(spark, path: str) -> None:
    """Start building the table's file list at its latest commit."""
    settle(spark, path)

    def build() -> None:
        try:
            snapshot = classic.snapshot(spark, path)
            if snapshot is not None:
                # its jobs say what they are (the UI, a test counting a close's jobs)
                classic.name_jobs(spark, JOB_GROUP, f"the file list of {path} at its latest commit")
                # what DELETE and replaceWhere ask first (the state's file count): builds and
                # caches the snapshot's state, which their file pruning then reads
                snapshot.numOfFiles()
        except Exception:  # no JVM (Spark Connect), another Delta build, a stopped session
            pass

    thread = threading.Thread(target=build, name=f"reasonlake-file-list-{path}", daemon=True)
    process_cache.of(spark).file_lists[path] = thread
    thread.start()


def settle(spark, path: str) -> None:
    """Wait for a file list being built for ``path`` (the caller is about to change it)."""
    thread = process_cache.of(spark).file_lists.pop(path, None)
    if thread is not None:
        with step("file list: wait"):  # a close that waits shows it in its profile
            thread.join()
