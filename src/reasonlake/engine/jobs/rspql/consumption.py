"""RSEP-QL's consumption policies (the thesis, section 6.5) across evaluations and processes.

Under the chronological and recent policies a MATCH reads, at evaluation time t_i, the input
I_i(w) = Delta_i(w) + (I_{i-1}(w) - used_{i-1}), cut to the window's content: the items new
to the window, and those of the earlier input no answer used. A window's content moves
forward, so an item is in it over one run of evaluation times; the rule is then: an item of
window w is not available at t_i when an evaluation t_j < t_i used it while it was in w
(its time in w's window at t_j). An item a MATCH used through one window but that enters
another window later is new input there, as Delta_i says.

What each evaluation used is kept in ``rspql_consumed`` (query, definition, MATCH, stream,
item time, evaluation time), appended per batch of evaluations before the batch is recorded:
rows past the query's recorded time (a crash between the two) are not read, and the redo
writes them again.
"""
from __future__ import annotations

import polars as pl

from reasonlake.declare.rspql_file import RspqlDecl
from reasonlake.engine.store import table_log, table_writes
from reasonlake.engine.store.home import Home
from reasonlake.plan.windows import Window

CONSUMED = "rspql_consumed"
_SCHEMA = "name STRING, fingerprint STRING, match INT, stream STRING, ts BIGINT, t BIGINT"
_COLUMNS = ["name", "fingerprint", "match", "stream", "ts", "t"]


class Consumption:
    """The items each MATCH of one query has used, by evaluation time."""

    def __init__(self, home: Home, decl: RspqlDecl, through: int | None):
        self.home, self.decl = home, decl
        self.kept = through  # the latest recorded evaluation: rows after it are an interrupted batch's
        self.used: dict[tuple[int, int], list[tuple[str, int]]] = {}  # (MATCH, t) -> (stream, item time)
        self.pending: list[tuple] = []
        if through is None or not any(m.consumption != "unrestricted" for m in decl.registration.matches):
            return
        if not table_log.is_delta(home.spark, home.path(CONSUMED)):
            return
        fingerprint = decl.fingerprint()
        for row in home.small_rows(CONSUMED, _COLUMNS, where=("name", decl.name)):
            if row.fingerprint == fingerprint and row.t <= through:
                self.used.setdefault((row.match, row.t), []).append((row.stream, row.ts))

    def available(self, k: int, stream: str, window: Window, items: pl.DataFrame, t: int) -> pl.DataFrame:
        """The rows of ``items`` (a ``$ts`` column) that MATCH ``k`` may read at ``t``."""
        if self.decl.registration.matches[k].consumption == "unrestricted":
            return items
        gone = {ts for (match, at), used in self.used.items() if match == k and at < t
                for used_stream, ts in used if used_stream == stream and window.opens(at) < ts <= at}
        return items.filter(~pl.col("$ts").is_in(list(gone))) if gone else items

    def note(self, k: int, t: int, used: list[tuple[str, int]]) -> None:
        """What MATCH ``k`` used at ``t`` (once per time: an answer read again adds nothing)."""
        if self.decl.registration.matches[k].consumption == "unrestricted" or (k, t) in self.used:
            return
        self.used[(k, t)] = used
        fingerprint = self.decl.fingerprint()
        self.pending += [(self.decl.name, fingerprint, k, stream, ts, t) for stream, ts in used]

    def write(self) -> None:
        """The pending rows appended (before the batch they belong to is recorded)."""
        if self.pending:
            table_writes.append_rows(self.home.spark, self.home.path(CONSUMED), self.pending, _SCHEMA)
            self.pending = []
