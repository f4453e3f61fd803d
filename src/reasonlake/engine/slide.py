"""The slide job: process every pending window close of a view, in order (decisions 0001, 0004).

Per close (``close``): expire whole partitions, admit the new pane, repair, semi-naive
rounds, violations, publish, record the close and the published Delta version. Readers pin
to the published version, so they never observe a half-applied close; every step is
idempotent, so a re-run after a crash gives the table an uninterrupted run gives.
"""
from __future__ import annotations

from pyspark.sql import functions as F

from reasonlake.declare.durations import format_time
from reasonlake.declare.view import ViewDecl
from reasonlake.engine import close as close_steps
from reasonlake.engine import collector
from reasonlake.engine.admit import next_event_time
from reasonlake.engine.compiled import Compiled, compile_view
from reasonlake.engine.progress import Progress, Steps
from reasonlake.engine.store import foreign_commits, lease, state
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store.home import Home


def pending_closes(home: Home, decl: ViewDecl, last: state.Published | None, until: int, upto_seq: int):
    """The closes that have work, in order, ending at the latest close <= until.

    A close where nothing enters and nothing expires would leave the table as it is, so it
    is skipped: a read at such a close is the previous close filtered by expiry."""
    window = decl.window
    target = window.close_at_or_before(until)
    after = last.close if last else None
    late_pending = last is not None and last.events_seq < upto_seq
    while after is None or after < target:
        # No close comes before the very next one: once a candidate is that one, the
        # queries for earlier work are skipped (a job that slides one close asks none).
        soonest = after + window.slide if after is not None else None
        candidates = [target]
        if late_pending:  # events that arrived late enter at the very next close
            candidates.append(soonest)
            late_pending = False
        if min(candidates) != soonest:
            t = next_event_time(home, decl.stream, after, upto_seq)
            if t is not None:
                candidates.append(window.close_at_or_after(t))  # the close whose pane holds t
        if after is not None and min(candidates) != soonest:
            expiring = mat.current(home, decl.name).where(F.col("exp_pane") > after)
            pane = expiring.agg(F.min("exp_pane").alias("m")).first().m
            if pane is not None:
                candidates.append(pane)
        nxt = max(min(candidates), window.first_close)
        if nxt > target:
            return
        after = nxt
        yield after


def slide(home: Home, view: str, until: int, progress: Progress | None = None) -> list[state.Published]:
    """``progress``: told of each processed close (``engine.progress``)."""
    home.require_created(view)
    with lease.writing(home, view, "slide"):  # before the state is read: one writer per view
        return _slide(home, view, until, progress)


def _slide(home: Home, view: str, until: int, progress: Progress | None) -> list[state.Published]:
    decl = home.view(view)
    compiled = compile_view(home, decl)
    upto_seq = state.latest_ingest_seq(home)
    done = []
    history, seq = state.lineage_and_next_seq(home, view)
    last = history[-1] if history else None
    if last is not None:  # the table as the last close left it, or as a crashed close of ours did
        foreign_commits.check(home.spark, view, home.mat_path(view), last.version, last.close)
    closes = pending_closes(home, decl, last, until, upto_seq)
    close = next(closes, None)
    steps = Steps(progress)
    if close is not None:
        steps.start()
    while close is not None:
        with collector.held_off():
            last = process_close(home, compiled, close, last, upto_seq, seq)
        done.append(last)
        seq += 1
        # the next close comes from the state this one left: asked before this one is
        # told, so that the last close is told with the total
        close = next(closes, None)
        steps.advance(format_time(last.close), last=close is None)
    return done


def process_close(
    home: Home, compiled: Compiled, close: int, last, upto_seq: int, seq: int
) -> state.Published:
    """One close, step by step (``close``): where it runs is decided once, at its start."""
    lease.check(home, compiled.decl.name)  # another writer took the view meanwhile: publish nothing
    run = close_steps.start(home, compiled, close, last, upto_seq, seq)
    run.expire()  # whole partitions (or the driver's rows) past the window
    run.admit()  # the new pane, late arrivals recorded
    run.repair()  # newest-wins: the losers tombstoned, their consequences over-deleted
    run = run.reason()  # semi-naive rounds (a driver close may hand over to Spark here)
    run.find_violations()
    run.publish()  # one commit readers do not see until the record
    return run.record()  # repair log, expectations, the close's record
