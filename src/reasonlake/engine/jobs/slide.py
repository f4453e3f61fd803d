"""The slide job: process every pending window close of a view, in order (decisions 0001, 0004).

Per close (``close``): expire whole partitions, admit the new pane, repair, semi-naive
rounds, violations, publish, record the close and the published Delta version. Readers pin
to the published version, so they never observe a half-applied close; every step is
idempotent, so a re-run after a crash gives the table an uninterrupted run gives.
"""
from __future__ import annotations

import sys

from reasonlake.declare.view import ViewDecl
from reasonlake.engine.jobs import close as close_steps
from reasonlake.engine.process import collector
from reasonlake.engine.process.progress import Progress, Steps
from reasonlake.engine.process.timing import step
from reasonlake.engine.steps.admit import next_event_time
from reasonlake.engine.steps.compiled import Compiled, compile_view
from reasonlake.engine.store import delta_sql, foreign_commits, lease, session_marks, state
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store.home import Home
from reasonlake.plan.durations import format_time


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
            pane = mat.next_expiry(home, decl.name, after)
            if pane is not None:
                candidates.append(pane)
        nxt = max(min(candidates), window.first_close)
        if nxt > target:
            return
        after = nxt
        yield after


def slide(home: Home, view: str, until: int, progress: Progress | None = None) -> list[state.Published]:
    """``progress``: told of each processed close (``engine.process.progress``)."""
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
        after = foreign_commits.check(home.spark, view, home.mat_path(view), last.version, last.close)
        _undo_crashed_close(home, view, last, after)
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


def _undo_crashed_close(home: Home, view: str, last: state.Published, commits: list) -> None:
    """The table put back as it was before a close that stopped half-way (a crash, a kill)
    after its expiry or its publish: its commits carry its close (``session_marks.closing``).

    Redone on top of those commits, the close would leave the same table (every step is
    idempotent) but find nothing left to expire and nothing new to derive, and record that:
    its history would show 0 where an uninterrupted close shows what it did, and a close
    whose only work was an expiry already committed would not be found again. Undone first
    (one RESTORE, after a crash only), it is redone as if it had never started.

    Commits of other reasonlake writers stay: those before the crashed close's first commit
    (a rebuild or repair job at the last close that stopped before recording it, too), and
    when one came after it, nothing is undone and the close is redone on top, as before
    (decision 0033)."""
    holds = max((c.version for c in commits if c.rebuilt_close == last.close), default=last.version)
    later = [c for c in commits if c.version > holds]
    crashed = [c for c in later if c.slid_close is not None]
    if not crashed or crashed[-1].operation == "RESTORE":  # none, or undone already
        return
    first = crashed[0].version
    if any(c.changes_data and c.slid_close is None for c in later if c.version > first):
        return
    try:
        # marked as part of that close: a redo stopped again is undone back to the same version
        with step("undo a crashed close"), session_marks.closing(home.spark, crashed[-1].slid_close):
            delta_sql.restore(home.spark, home.mat_path(view), first - 1)
    except Exception as exc:  # its files vacuumed since: the redo goes on from the crashed commits

        print(f"reasonlake: warning: view {view}: a close after {format_time(last.close)} stopped half-way "
              f"and version {first - 1} can no longer be restored ({str(exc).splitlines()[0][:300]}); the "
              "close is redone from what it wrote, with the same facts, but its history line may count less",
              file=sys.stderr)


def process_close(
    home: Home, compiled: Compiled, close: int, last, upto_seq: int, seq: int
) -> state.Published:
    """One close, step by step (``close``): where it runs is decided once, at its start."""
    lease.check(home, compiled.decl.name)  # another writer took the view meanwhile: publish nothing
    with session_marks.closing(home.spark, close):  # its commits say which close they belong to
        run = close_steps.start(home, compiled, close, last, upto_seq, seq)
        run.expire()  # whole partitions (or the driver's rows) past the window
        run.admit()  # the new pane, late arrivals recorded
        run.repair()  # newest-wins: the losers tombstoned, their consequences over-deleted
        run = run.reason()  # semi-naive rounds (a driver close may hand over to Spark here)
        run.find_violations()
        run.publish()  # one commit readers do not see until the record
        return run.record()  # repair log, expectations, the close's record
