"""Answers read from Delta tables, remembered with the table version they were read at.

Reading a Delta table through Spark costs a job or two (snapshot, scan) even when the
table holds three rows, while asking its log for the latest commit costs a directory
listing. A process that slides close after close reads the same tables again and again
(the view's declaration, the latest ingest, the view's lineage) while they have not
changed: an answer is kept with the commit it was read at and
reused while the table's latest commit is still that one. Any commit by anyone (another
job, a restore, a rebuild in another process) changes the latest commit, so a stale
answer is never served.

A commit is named by its version and its timestamp: a table deleted and created again at
the same path starts its versions over, and its commits' timestamps tell them apart.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from reasonlake.engine.store import access, process_cache
from reasonlake.engine.store.locations import is_connect
from reasonlake.engine.store.table_log import Commit, latest_commit

T = TypeVar("T")

_LIMIT = 256  # answers kept per session; the oldest go first


def _answers(spark) -> dict[tuple, tuple[Commit, object]]:
    return process_cache.of(spark).answers


def _key(spark, path: str, name: tuple) -> tuple:
    return (path, name)


def read(spark, path: str, name: tuple, compute: Callable[[], T], *, commit: Commit | None = None) -> T:
    """``compute()``, or its answer from an earlier call while the table is unchanged.
    ``name`` tells apart the different questions asked of one table; ``commit``: its latest
    commit when the caller has just asked for it.

    The answer is kept under the commit asked for before computing it. A commit by another
    writer in between may make the answer newer than that commit, never older, and is never
    served: the table is past that commit for good. So no second question after computing
    (over Spark Connect each question is a call to the server).

    Over Spark Connect the first read of a question in a process does not ask at all: a
    command that reads each table once (the command line's) would pay a call to the server
    per table for answers it never reuses. The second read asks and keeps its answer, so a
    process that reads again (a job sliding close after close, the runner) pays one extra
    read per question, once."""
    key = _key(spark, path, name)
    if commit is None:
        if _first_read_over_connect(spark, path, key):
            return compute()
        commit = latest_commit(spark, path)
    if commit is not None:
        kept = _answers(spark).get(key)
        if kept is not None and kept[0] == commit:
            return kept[1]
    value = compute()
    if commit is not None:
        remember(spark, path, name, commit, value)
    return value


def _first_read_over_connect(spark, path: str, key: tuple) -> bool:
    """Whether this is the first read of ``key`` in the process, on a Spark Connect session
    whose question would be a call to the server (marked read, so the next one asks). A
    table this process lists itself (``small_tables``) costs no call to ask about."""
    cache = process_cache.of(spark)
    if key in cache.read_once or key in cache.answers or not is_connect(spark):
        return False
    if access.of(spark, path).folder(path) is not None:
        return False
    cache.read_once.add(key)
    return True


def peek(spark, path: str, name: tuple):
    """The answer kept for ``name`` if the table is still at the commit it was read at, else None."""
    commit = latest_commit(spark, path)
    kept = _answers(spark).get(_key(spark, path, name))
    return kept[1] if commit is not None and kept is not None and kept[0] == commit else None


def remember(spark, path: str, name: tuple, commit: Commit | None, value) -> None:
    key, answers = _key(spark, path, name), _answers(spark)
    if commit is None:
        answers.pop(key, None)
        return
    if key not in answers and len(answers) >= _LIMIT:
        answers.pop(next(iter(answers)))
    answers[key] = (commit, value)


def forget(spark, path: str, name: tuple) -> None:
    _answers(spark).pop(_key(spark, path, name), None)


def after_own_commit(spark, path: str, name: tuple, before: Commit | None, update: Callable[[T], T], *,
                     after: Commit | None = None) -> None:
    """The table got one commit of ours since ``before``: carry an answer read at ``before``
    over to the new commit, updated by ``update``, when no other commit came in between
    (else forget it: the next read asks the table). ``after``: the table's latest commit,
    when the caller carries several answers over the same commit."""
    kept_answer = _answers(spark).get(_key(spark, path, name))
    after = after or latest_commit(spark, path)
    if kept_answer is None or before is None or after is None or kept_answer[0] != before or after[0] != before[0] + 1:
        forget(spark, path, name)
        return
    remember(spark, path, name, after, update(kept_answer[1]))
