"""The warm state a process keeps for a Spark session, on one object it can drop.

A job that slides close after close, a streaming runner that lives for hours and a
scheduler that serves several views all gain from what an earlier close left: the view's
compiled rules, the table's facts still in the driver, answers read from small tables,
the file list Delta builds after our commit. Each is valid only with the session that made
it (Spark frames, the JVM's snapshots), so they live together on the session's
``ProcessCache`` (``of(spark)``, also ``Home.cache``), and ``clear`` drops them all
(``Lakehouse.clear_cache``): a long-running process gives the memory back, a test starts cold.

Every entry is checked before use against the table's latest commit (or the view's
fingerprint), so nothing kept is ever served stale; the cache only saves reads.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class ProcessCache:
    # (view, fingerprint) -> engine.steps.compiled.Compiled  (``compiled``)
    compiled: dict = field(default_factory=dict)
    # (table path, fingerprint) -> (commit, facts in the driver)  (``reason.resident``)
    resident: dict = field(default_factory=dict)
    # (table path, question) -> (commit, answer)  (``table_cache``)
    answers: dict = field(default_factory=dict)
    # (table path, question) read once without asking for the commit  (``table_cache``)
    read_once: set = field(default_factory=set)
    # table path -> the thread building its file list  (``file_list``)
    file_lists: dict[str, threading.Thread] = field(default_factory=dict)
    # (home, view, query) -> (close, version, text, answer, the view's triples there)
    # (``continuous_queries``: the previous answer IStream and DStream compare with)
    query_answers: dict = field(default_factory=dict)
    # (home, view, query) -> (text, the triples' generation, the query's pattern's solutions there,
    # its patterns' matches by pane)
    # (``continuous_queries``: carried across the next close's change, ``query.incremental``)
    query_solutions: dict = field(default_factory=dict)
    # (a local path?, reads here?, commits here?) -> the access mode chosen  (``access``)
    access: dict = field(default_factory=dict)
    # view table path -> ((version, close, driver budget), the view's triples there)  (``query_read``)
    query_views: dict = field(default_factory=dict)
    # view table path -> its triples decoded pane by pane from the facts kept  (``decoded_panes``)
    decoded_panes: dict = field(default_factory=dict)
    # terms table path -> (its data files read, every (id, term) they hold)  (``dictionary``)
    dictionaries: dict = field(default_factory=dict)

    def clear(self) -> None:
        """Drop everything kept (file lists being built are waited for first: they hold
        the table's snapshot)."""
        for thread in list(self.file_lists.values()):
            thread.join()
        self.compiled.clear()
        self.resident.clear()
        self.answers.clear()
        self.read_once.clear()
        self.file_lists.clear()
        self.query_answers.clear()
        self.query_solutions.clear()
        self.access.clear()
        self.query_views.clear()
        self.decoded_panes.clear()
        self.dictionaries.clear()


# id(session) -> (session, its cache). The session is kept beside its id so that an id
# reused by a later session is never taken for it.
_CACHES: dict[int, tuple[object, ProcessCache]] = {}
_LOCK = threading.Lock()


def of(spark) -> ProcessCache:
    """The cache of ``spark``'s session, made on first use."""
    with _LOCK:
        kept = _CACHES.get(id(spark))
        if kept is not None and kept[0] is spark:
            return kept[1]
        cache = ProcessCache()
        _CACHES[id(spark)] = (spark, cache)
        return cache

