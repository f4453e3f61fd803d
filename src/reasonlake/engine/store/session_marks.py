"""The mark every commit a reasonlake writer makes carries in Delta's ``userMetadata``
(``foreign_commits`` tells a view's own commits from others' by it): set on the session
while a command writes (``marked``), naming the close a slide is processing (``closing``),
or a rebuild's close (``rebuild_mark``); ``mark_of`` gives it to the writers that commit
from this process (``rs_commit``, delta-rs writes), which the session setting does not reach.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from reasonlake.engine.store.session import set_setting, setting

MARK = "reasonlake"
# Delta writes this session setting into every commit's commitInfo.userMetadata (a
# writer's own userMetadata option wins: commit_marks' "reasonlake seq=N" starts the same)
_CONF = "spark.databricks.delta.commitInfo.userMetadata"
# session -> how many blocks of this process mark its commits now: the setting is the
# session's, shared by threads (an ingest beside a slide), so only the last block out unsets it
_MARKING: dict[int, tuple[int, str | None]] = {}
# session -> the mark of the close a slide of this process is processing (``closing``)
_CLOSING: dict[int, str] = {}
_MARKING_LOCK = threading.Lock()


@contextmanager
def marked(spark):
    """The session's Delta commits carry the reasonlake mark meanwhile (re-entrant, and
    across threads: the mark stays until every block has ended)."""
    key = id(spark)
    with _MARKING_LOCK:
        depth, previous = _MARKING.get(key, (0, None))
        if depth == 0:
            previous = setting(spark, _CONF)
            set_setting(spark, _CONF, MARK)
        _MARKING[key] = (depth + 1, previous)
    try:
        yield
    finally:
        with _MARKING_LOCK:
            depth, previous = _MARKING.pop(key)
            if depth > 1:
                _MARKING[key] = (depth - 1, previous)
            else:
                set_setting(spark, _CONF, previous)


@contextmanager
def closing(spark, close: int):
    """Inside ``marked``: the session's commits carry ``slide_mark(close)`` meanwhile, so that
    a slide finding them after its last recorded close knows that this close stopped half-way
    (decision 0033). A commit another thread makes meanwhile carries it too, and stays a
    reasonlake commit; the close's own are all marked, which is what the slide needs."""
    key = id(spark)
    with _MARKING_LOCK:
        refining = key in _MARKING and key not in _CLOSING
        if refining:
            _CLOSING[key] = slide_mark(close)
            set_setting(spark, _CONF, _CLOSING[key])
    try:
        yield
    finally:
        if refining:
            with _MARKING_LOCK:
                del _CLOSING[key]
                if key in _MARKING:
                    set_setting(spark, _CONF, MARK)


def mark_of(spark) -> str | None:
    """The mark the session's commits carry now (None: no block marks them): for commits
    this process writes itself (``rs_commit``), which the setting does not reach."""
    with _MARKING_LOCK:
        key = id(spark)
        return _CLOSING.get(key, MARK) if key in _MARKING else None


REBUILD = f"{MARK} rebuild close="
SLIDE = f"{MARK} slide close="


def rebuild_mark(close: int) -> str:
    """The ``userMetadata`` of a rebuild's commit: the close the table holds after it."""
    return f"{REBUILD}{close}"


def slide_mark(close: int) -> str:
    """The ``userMetadata`` of a commit a slide makes while it processes ``close``."""
    return f"{SLIDE}{close}"
