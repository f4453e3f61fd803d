"""The slide job: process every pending window close of a view, in order (DESIGN §3).

Per close: expire whole partitions, admit the new pane, (repair: a later step), semi-naive
rounds, publish with MERGE, record the close and the published Delta version. Readers pin
to the published version, so they never observe a half-applied close; every step is
idempotent, so a re-run after a crash gives the table an uninterrupted run gives.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.view import ViewDecl
from reasonlake.engine import materialization as mat
from reasonlake.engine import state
from reasonlake.engine import violations as viol
from reasonlake.engine.admit import admit, next_event_time, record_late
from reasonlake.engine.fixpoint import find_violations, run_fixpoint
from reasonlake.engine.home import Home
from reasonlake.engine.program_tables import ProgramTables, encode_program

# Test hook: raise after the named step of the slide (used to prove crash safety).
CRASH_AFTER_ENV = "REASONLAKE_CRASH_AFTER"


@dataclass
class Compiled:
    decl: ViewDecl
    tables: ProgramTables


def compile_view(home: Home, decl: ViewDecl) -> Compiled:
    program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
    background = sorted(load_tbox(decl.background)) if decl.background else ()
    return Compiled(decl=decl, tables=encode_program(home.spark, program, extra_background=background))


def _seed(compiled: Compiled, items, first: bool):
    """The step's candidate facts: the admitted items, and at a view's first close (or a
    rebuild) the background facts, which never expire."""
    background = compiled.tables.background
    if first and background is not None:
        return items.unionByName(background)
    return items


def _maybe_crash(step: str) -> None:
    import os

    if os.environ.get(CRASH_AFTER_ENV) == step:
        os._exit(70)  # a hard stop, as a killed process: no cleanup, no Python finalizers


def pending_closes(home: Home, decl: ViewDecl, last: state.Published | None, until: int, upto_seq: int):
    """The closes that have work, in order, ending at the latest close <= until.

    A close where nothing enters and nothing expires would leave the table as it is, so it
    is skipped: a read at such a close is the previous close filtered by expiry."""
    window = decl.window
    target = window.close_at_or_before(until)
    after = last.close if last else None
    late_pending = last is not None and last.events_seq < upto_seq
    while after is None or after < target:
        candidates = [target]
        t = next_event_time(home, decl.stream, after, upto_seq)
        if t is not None:
            candidates.append(window.close_at_or_after(t))  # the close whose pane holds t
        if after is not None:
            expiring = mat.current(home, decl.name).where(F.col("exp_pane") > after)
            pane = expiring.agg(F.min("exp_pane").alias("m")).first().m
            if pane is not None:
                candidates.append(pane)
            if late_pending:  # events that arrived late enter at the very next close
                candidates.append(after + window.slide)
                late_pending = False
        nxt = max(min(candidates), window.first_close)
        if nxt > target:
            return
        after = nxt
        yield after


def slide(home: Home, view: str, until: int) -> list[state.Published]:
    decl = home.view(view)
    compiled = compile_view(home, decl)
    upto_seq = state.latest_ingest_seq(home)
    done = []
    history = state.lineage(home, view)
    last = history[-1] if history else None
    seq = state.next_seq(home, view)
    for close in pending_closes(home, decl, last, until, upto_seq):
        last = process_close(home, compiled, close, last, upto_seq, seq)
        done.append(last)
        seq += 1
    return done


def process_close(
    home: Home, compiled: Compiled, close: int, last, upto_seq: int, seq: int
) -> state.Published:
    decl = compiled.decl
    started = time.perf_counter()
    expired = mat.expire(home, decl.name, close)
    _maybe_crash("expire")
    admission = admit(
        home, decl.stream, decl.window, close,
        previous=last.close if last else None,
        seen_seq=last.events_seq if last else upto_seq,
        upto_seq=upto_seq,
    )
    late = record_late(home, decl.name, admission.late, close, seq)
    # The table after expiry, read once: every round joins it, and a Delta scan per round
    # (snapshot, file index, deletion vectors) costs far more than one local copy.
    base = mat.current(home, decl.name).select("s", "p", "o", "origin", "rule").localCheckpoint()
    seed = _seed(compiled, admission.items.drop("n"), first=last is None)
    result = run_fixpoint(home.spark, base, seed, compiled.tables)
    changes = result.changes
    _maybe_crash("reason")
    stats = change_stats(changes)
    found = find_violations(home.spark, base, changes, compiled.tables)
    if found is not None:
        viol.record(home, decl.name, decl.window, found, close)
    if stats.n:
        mat.publish(home, decl.name, decl.window, changes, renewals=stats.renewed > 0)
    _maybe_crash("publish")
    record = state.Published(
        seq=seq, close=close, version=mat.version(home, decl.name), mode="slide",
        events_seq=upto_seq, admitted=admission.count, expired=expired,
        derived=stats.derived, renewed=stats.renewed, rounds=result.rounds,
        late=late, seconds=round(time.perf_counter() - started, 3),
        violations=viol.count_live(home, decl.name, close) if found is not None else 0,
    )
    state.append(home, decl.name, record)
    return record


@dataclass(frozen=True)
class ChangeStats:
    n: int
    derived: int
    renewed: int


def change_stats(changes) -> ChangeStats:
    row = changes.agg(
        F.count("*").alias("n"),
        F.sum(F.when(F.col("rule") != "explicit", 1).otherwise(0)).alias("derived"),
        F.sum(F.when(F.col("prev_origin").isNotNull(), 1).otherwise(0)).alias("renewed"),
    ).first()
    return ChangeStats(n=row.n, derived=row.derived or 0, renewed=row.renewed or 0)


def rebuild(home: Home, view: str, at: int | None, *, now: int) -> state.Published:
    """Materialize the window at a close from scratch (the naive baseline), in one commit."""
    from reasonlake.engine.admit import explicit_items, stream_events

    decl = home.view(view)
    compiled = compile_view(home, decl)
    window = decl.window
    history = state.lineage(home, view)
    if at is None:
        close = history[-1].close if history else window.close_at_or_before(now)
    else:
        close = window.close_at_or_before(at)
    started = time.perf_counter()
    upto_seq = state.latest_ingest_seq(home)
    seq = state.next_seq(home, view)
    events = stream_events(home, decl.stream, upto_seq, window.opens(close), close)
    items = explicit_items(events).localCheckpoint()
    empty = home.spark.createDataFrame([], "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING")
    result = run_fixpoint(home.spark, empty, _seed(compiled, items.drop("n"), first=True), compiled.tables)
    found = find_violations(home.spark, empty, result.changes, compiled.tables)
    if found is not None:
        viol.replace(home, view, window, found, close)
    mat.overwrite(home, view, window, result.changes)
    stats = change_stats(result.changes)
    record = state.Published(
        seq=seq, close=close, version=mat.version(home, view), mode="rebuild",
        events_seq=upto_seq, admitted=int(items.agg(F.sum("n")).first()[0] or 0), expired=0,
        derived=stats.derived,
        renewed=0, rounds=result.rounds, late=0, seconds=round(time.perf_counter() - started, 3),
        violations=viol.count_live(home, view, close) if found is not None else 0,
    )
    state.append(home, view, record)
    return record
