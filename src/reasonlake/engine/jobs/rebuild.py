"""Rebuild: the window at a close materialized from scratch (the naive baseline), in one
overwrite commit; also the last step of the repair job (``repair_job``)."""
from __future__ import annotations

import time

import polars as pl
from pyspark.sql import functions as F

from reasonlake.engine.jobs import continuous_queries
from reasonlake.engine.jobs import expectations as expect
from reasonlake.engine.process import collector, faults
from reasonlake.engine.process.progress import Progress, Steps
from reasonlake.engine.process.timing import step
from reasonlake.engine.reads.read import check_close
from reasonlake.engine.reason import budget, driver_rounds, resident
from reasonlake.engine.reason.spark_rounds import find_violations, run_fixpoint
from reasonlake.engine.steps.admit import explicit_items, stream_events, window_rows
from reasonlake.engine.reason.fixpoint_result import FixpointResult, change_summary
from reasonlake.engine.steps.after_rounds import file_list_ahead
from reasonlake.engine.steps.compiled import Compiled, compile_view, seed
from reasonlake.engine.store import catalog, file_list, lease, repair_tables, state
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import FACT_COLUMNS, FACT_SCHEMA
from reasonlake.errors import CloseError
from reasonlake.plan.durations import format_time


def rebuild(home: Home, view: str, at: int | None, *, now: int, rewind: bool = True,
            progress: Progress | None = None) -> state.Published:
    """Materialize the window at a close from scratch (the naive baseline), in one commit.
    A close before the last processed one moves the view back to it (``rewind``): the next
    slide processes the later closes again. ``progress``: told of each step."""
    with lease.writing(home, view, "rebuild"):
        return _rebuild(home, view, at, now=now, rewind=rewind, progress=progress)


def _rebuild(home: Home, view: str, at: int | None, *, now: int, rewind: bool,
             progress: Progress | None) -> state.Published:
    decl = home.view(view)
    compiled = compile_view(home, decl)
    history, seq = state.lineage_and_next_seq(home, view)
    if at is None:
        close = history[-1].close if history else decl.window.close_at_or_before(now)
    else:
        close = _rebuild_close(decl, history, at, now, rewind)
    steps = Steps(progress, MATERIALIZE_STEPS + 1).start()
    with collector.held_off():
        record, checked = materialize(home, compiled, close, state.latest_ingest_seq(home), seq, steps=steps)
    faults.reached("rebuild: published")
    state.append(home, view, record)
    catalog.show(home, view, record)
    steps.advance("record close")
    expect.act(decl, checked)
    return record


def _rebuild_close(decl, history, at: int, now: int, rewind: bool) -> int:
    """``at`` itself, if it is a close a rebuild may take: one already processed (or, before
    any, one already past). A later close would publish a window the next slide cannot
    follow (events up to it would never be admitted)."""
    window = decl.window
    check_close(decl.name, window, at)
    close = at
    last = history[-1].close if history else window.close_at_or_before(now)
    if close > last:
        what = "its last processed close" if history else "the last close before now"
        raise CloseError(
            f"--at {format_time(at)} is after {what}, {format_time(last)}; rebuild takes a close "
            "up to that one (`reasonlake slide` processes the closes after it)")
    if history and close < last and not rewind:
        raise CloseError(
            f"--at {format_time(at)} is before the last processed close, {format_time(last)}: rebuilding "
            "there moves the view back (the next slide redoes the later closes); pass --rewind to do "
            f"that, or read that close as it was with `reasonlake export {decl.name} --close {format_time(at)}`")
    return close


MATERIALIZE_STEPS = 4  # the steps `materialize` tells: admit, rounds, violations, publish


def materialize(home: Home, compiled: Compiled, close: int, upto_seq: int, seq: int, *,
                 lost=None, mode: str = "rebuild", repairs: int = 0,
                 steps: Steps | None = None) -> tuple[state.Published, expect.Outcome | None]:
    """The window at ``close`` closed from scratch and written in one overwrite commit.
    Items tombstoned by repair up to that close stay out, and so do ``lost`` (s, p, o, ts).
    In the driver where the window fits its budget (``_in_driver``), else through Spark."""
    steps = steps or Steps()
    started = time.perf_counter()
    if compiled.repair is None and lost is None:
        done = _in_driver(home, compiled, close, upto_seq, seq, mode=mode, repairs=repairs, steps=steps,
                          started=started)
        if done is not None:
            return done
    return _through_spark(home, compiled, close, upto_seq, seq, lost=lost, mode=mode, repairs=repairs,
                          steps=steps, started=started)


def _in_driver(home: Home, compiled: Compiled, close: int, upto_seq: int, seq: int, *, mode: str,
               repairs: int, steps: Steps, started: float):
    """``materialize`` in this process: the window's events read by delta-rs, the rounds
    and the violation search in the driver, the table written by the driver in one commit.
    A small window then costs no Spark job (a Brick model of a few triples: under half a
    second, against about 1.5 s of jobs). None, with nothing written, where the events or
    the closure do not fit the driver's budget: the caller goes through Spark."""

    decl, window, view, tables = compiled.decl, compiled.decl.window, compiled.decl.name, compiled.tables
    if not budget.LOCAL_ROWS:
        return None
    with step("admit"):
        items = window_rows(home, decl.stream, upto_seq, window.opens(close), close, budget.LOCAL_ROWS)
    if items is None:
        return None
    seed_rows = items.drop("n")
    if tables.driver_background is not None:
        seed_rows = pl.concat([seed_rows, tables.driver_background.select(seed_rows.columns)])
    with step("rounds"):
        local = driver_rounds.run_step(home.spark, None, None, tables, 0, known=seed_rows.clear().select(FACT_COLUMNS),
                                       seed_rows=seed_rows)
    if local is None:
        return None
    steps.advance("admit")
    steps.advance("rounds")
    result = FixpointResult(None, rounds=local.rounds, local=local)
    searched = _published(home, compiled, close, result, None, steps,
                          lambda: mat.overwrite_rows(home, view, window, local.known, close))
    return _recorded(home, compiled, close, upto_seq, seq, result, admitted=int(items.get_column("n").sum()),
                     searched=searched, mode=mode, repairs=repairs, started=started)


def _through_spark(home: Home, compiled: Compiled, close: int, upto_seq: int, seq: int, *, lost, mode: str,
                   repairs: int, steps: Steps, started: float):

    decl, window, view = compiled.decl, compiled.decl.window, compiled.decl.name
    events = stream_events(home, decl.stream, upto_seq, window.opens(close), close)
    if compiled.repair is not None:  # items removed by repair stay removed
        removed = repair_tables.tombstones(home, view, before=close + 1)
        if lost is not None:
            removed = removed.unionByName(lost.select("s", "p", "o", "ts"))
        removed = removed.select(F.col("s").alias("s_id"), F.col("p").alias("p_id"), F.col("o").alias("o_id"), "ts")
        events = events.join(removed, ["s_id", "p_id", "o_id", "ts"], "left_anti")
    with step("admit"):
        items = explicit_items(events).localCheckpoint()
    steps.advance("admit")
    empty = home.spark.createDataFrame([], FACT_SCHEMA)
    with step("rounds"):
        result = run_fixpoint(home.spark, empty, seed(compiled, items.drop("n"), first=True), compiled.tables,
                              known_rows=0, summary=change_summary())
    steps.advance("rounds")
    searched = _published(home, compiled, close, result, empty, steps,
                          lambda: mat.overwrite(home, view, window, result.changes, close))
    return _recorded(home, compiled, close, upto_seq, seq, result,
                     admitted=int(items.agg(F.sum("n")).first()[0] or 0), searched=searched,
                     mode=mode, repairs=repairs, started=started)


def _published(home: Home, compiled: Compiled, close: int, result, base, steps: Steps, overwrite) -> bool:
    """The violations found replace the table's, then ``overwrite`` writes the view's table;
    whether the program searched for violations."""
    view = compiled.decl.name
    with step("violations"):
        found = find_violations(home.spark, base, result, compiled.tables, terms=lambda: home.table("terms"))
        if found is not None and not _none_found_nor_held(home, view, result):
            viol.replace(home, view, compiled.decl.window, found, close)
    steps.advance("violations")
    with step("publish"):
        file_list.settle(home.spark, home.mat_path(view))
        overwrite()
    steps.advance("publish")
    return found is not None


def _none_found_nor_held(home: Home, view: str, result) -> bool:
    """Searched in the driver, no violation found, and none in the table: a replace would
    write what is there already."""
    return result.none_found() and viol.holds_none(home, view)


def _recorded(home: Home, compiled: Compiled, close: int, upto_seq: int, seq: int, result, *, admitted: int,
              searched: bool, mode: str, repairs: int, started: float):
    """After the table's commit: the facts kept for the next close, the registered queries'
    rows, the expectations, and the close's record (not yet appended)."""
    decl, view = compiled.decl, compiled.decl.name
    file_list_ahead(home, home.mat_path(view), result, compiled)
    kept = result.whole_table(decl.window) if compiled.repair is None else None
    if kept is not None:
        resident.keep(home, view, decl.fingerprint(), kept)
    stats = result.stats()
    version = mat.version(home, view)
    if decl.queries:  # imported here: a view without registered queries never loads the SPARQL compiler

        # the queries' rows from this close on are this rebuild's (later closes: the next slide's)
        continuous_queries.after_publish(home, decl, close, version,
                                         [r for r in state.lineage(home, view) if r.close < close])
    checked = expect.after_close(home, decl, close, version, upto_seq)
    record = state.Published(
        seq=seq, close=close, version=version, mode=mode,
        events_seq=upto_seq, admitted=admitted, expired=0,
        derived=stats.derived,
        renewed=0, rounds=result.rounds, late=0, seconds=round(time.perf_counter() - started, 3),
        violations=viol.count_live(home, view, close) if searched else 0,
        repairs=repairs,
        violations_version=viol.version(home, view) if searched else None,
        **expect.record_fields(decl, checked),
    )
    return record, checked


