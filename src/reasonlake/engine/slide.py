"""The slide job: process every pending window close of a view, in order (DESIGN §3).

Per close: expire whole partitions, admit the new pane, (repair: a later step), semi-naive
rounds, publish with MERGE, record the close and the published Delta version. Readers pin
to the published version, so they never observe a half-applied close; every step is
idempotent, so a re-run after a crash gives the table an uninterrupted run gives.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import polars as pl
from pyspark.sql import functions as F

from reasonlake.compile.normal_form import for_view
from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.durations import format_time
from reasonlake.declare.view import ViewDecl
from reasonlake.engine import (collector, dred, faults, file_list, foreign_commits, lease, local_rules,
                               resident, state)
from reasonlake.engine import expectations as expect
from reasonlake.engine import materialization as mat
from reasonlake.engine import repair as rep
from reasonlake.engine import violations as viol
from reasonlake.engine.admit import admit, next_event_time, record_late
from reasonlake.engine.fixpoint import BROADCAST_ROWS, find_violations, run_fixpoint, run_resident
from reasonlake.engine.home import Home
from reasonlake.engine.program_tables import ProgramTables, encode_program
from reasonlake.engine.progress import Progress, Steps
from reasonlake.engine.timing import step
from reasonlake.errors import CloseError, ViewDeclarationError


@dataclass
class Compiled:
    decl: ViewDecl
    tables: ProgramTables
    repair: rep.RepairTables | None = None  # newest-wins: the conflict patterns


# Compiled views of this process, by session and view fingerprint (which covers the
# ontology texts, the profile and every option that changes the rules): a job that slides
# several times, or several views over one TBox, compiles once. Term ids are hashes, so a
# compiled program does not depend on the lake.
_COMPILED: dict[tuple[str, str], tuple[object, Compiled]] = {}


def compile_view(home: Home, decl: ViewDecl) -> Compiled:
    key = (decl.name, decl.fingerprint())
    spark, compiled = _COMPILED.get(key, (None, None))
    if spark is home.spark and compiled.decl == decl:
        return compiled
    if len(_COMPILED) >= 8:
        _COMPILED.pop(next(iter(_COMPILED)))
    compiled = _compile(home, decl)
    _COMPILED[key] = (home.spark, compiled)
    return compiled


def _compile(home: Home, decl: ViewDecl) -> Compiled:
    with step("compile"):
        program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
        background = sorted(load_tbox(decl.background)) if decl.background else ()
        if program.checks_literals and not program.negative():
            # an owl2rl view created before dt-not-type had no violations table without a
            # negative rule; once per process and view
            viol.create(home, decl.name)
        repair = None
        if decl.repair == "newest-wins":
            repair = rep.encode(home.spark, for_view(decl, program))
        return Compiled(decl=decl, tables=encode_program(home.spark, program, extra_background=background),
                        repair=repair)


def _seed(compiled: Compiled, items, first: bool):
    """The step's candidate facts: the admitted items, and at a view's first close (or a
    rebuild) the background facts, which never expire."""
    background = compiled.tables.background
    if first and background is not None:
        return items.unionByName(background)
    return items


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
    decl = compiled.decl
    lease.check(home, decl.name)  # another writer took the view meanwhile: publish nothing
    started = time.perf_counter()
    # The table's facts, when this process published the table's latest commit from the
    # driver (repair views read the table: their step changes it in several places).
    facts = resident.take(home, decl.name, decl.fingerprint()) if compiled.repair is None else None
    mat_path = home.mat_path(decl.name)
    if facts is None:  # the table is read and changed from the start
        file_list.settle(home.spark, mat_path)
    dropping = False  # expired partitions still to drop (with the publish, in one commit)
    with step("expire"):
        if facts is not None:
            facts, expired = resident.expire(facts, decl.window.opens(close))
            dropping = expired > 0
        else:
            expired = mat.expire(home, decl.name, close)
        if compiled.repair is not None:
            rep.expire(home, decl.name, close)
    faults.reached("expire")
    with step("admit"):
        admission = admit(
            home, decl.stream, decl.window, close,
            previous=last.close if last else None,
            seen_seq=last.events_seq if last else upto_seq,
            upto_seq=upto_seq,
            driver_rows=local_rules.LOCAL_ROWS - facts.height if facts is not None else 0,
        )
        with step("admit: late"):
            late = record_late(home, decl.name, admission.late, close, seq)
    def read_table():
        with step("read materialization"):
            # The table after expiry, read once: every round joins it, and a Delta scan per
            # round (snapshot, file index, deletion vectors) costs far more than one local copy.
            return mat.current(home, decl.name).select("s", "p", "o", "origin", "rule").localCheckpoint()

    base = read_table() if facts is None else None
    repaired = None
    if compiled.repair is not None:
        with step("repair"):
            repaired = repair_step(home, compiled, close, last, upto_seq, seq, base)
        if repaired.decision.removals:
            base = repaired.base

    def seed_frame():
        """The step's candidates as a Spark frame: built only when the step is not run
        from the admitted rows in the driver."""
        lost = repaired is not None and repaired.decision.removals
        seed = _seed(compiled, repaired.seed if lost else admission.items.drop("n"), first=last is None)
        if repaired is not None and repaired.restore is not None:
            seed = seed.unionByName(repaired.restore)
        return seed

    result = None
    if facts is not None:
        with step("rounds"):
            # the admitted rows are the whole seed unless the background joins it (first close)
            only_admitted = admission.rows is not None and (last is not None or compiled.tables.background is None)
            result = run_resident(home.spark, facts, None if only_admitted else seed_frame(), compiled.tables,
                                  seed_rows=admission.rows.drop("n") if only_admitted else None)
        if result is None:  # too big for the driver after all: the Spark path, from the table
            file_list.settle(home.spark, mat_path)
            if dropping:
                mat.drop_expired(home, decl.name, close)
                dropping = False
            base = read_table()
    if result is None:
        with step("rounds"):
            result = run_fixpoint(home.spark, base, seed_frame(), compiled.tables)
    faults.reached("reason")
    stats = change_stats(result)
    with step("violations"):
        found = find_violations(home.spark, base, result, compiled.tables, terms=lambda: home.table("terms"))
        # found in the driver, the search counted its rows: none, no commit (and no job to ask)
        recorded = found is not None and not (result.local is not None and result.local.violations_found == 0)
    if recorded:
        with step("record violations"):
            viol.record(home, decl.name, decl.window, found, close)
    replaced = False
    file_list.settle(home.spark, mat_path)
    if facts is not None:  # expiry and the touched panes in one commit, when they are few
        with step("publish"):
            replaced = _replace_panes(home, decl, result, stats, close if dropping else None)
    if dropping and not replaced:
        mat.drop_expired(home, decl.name, close)
    with step("publish"):
        if repaired is not None and repaired.deleted is not None:
            mat.publish_repaired(home, decl.name, decl.window, repaired.base, result.changes, repaired.deleted)
        elif stats.n and not replaced:
            mat.publish(home, decl.name, decl.window, result.changes,
                        old_panes=_renewed_panes(result, decl.window) if stats.renewed else [])
    faults.reached("publish")
    file_list.rebuild_ahead(home.spark, mat_path)  # for the next close, while this one records itself
    version = mat.version(home, decl.name)
    if result.local is not None and compiled.repair is None:
        resident.keep(home, decl.name, decl.fingerprint(), result.local.known)
    if repaired is not None:
        with step("repair log"):
            rep.log_repairs(home, decl.name, repaired.decision, close, seq, version, "slide")
        faults.reached("repair log")
    checked = expect.after_close(home, decl, close, version, upto_seq)
    record = state.Published(
        seq=seq, close=close, version=version, mode="slide",
        events_seq=upto_seq, admitted=admission.count, expired=expired,
        derived=stats.derived, renewed=stats.renewed, rounds=result.rounds,
        late=late, seconds=round(time.perf_counter() - started, 3),
        violations=_live_violations(home, decl.name, close, last, found is not None, recorded),
        repairs=len(repaired.decision.removals) if repaired is not None else 0,
        violations_version=viol.version(home, decl.name) if found is not None else None,
        **expect.record_fields(decl, checked),
    )
    with step("record close"):
        state.append(home, decl.name, record)
    expect.act(decl, checked)
    return record


def _live_violations(home: Home, view: str, close: int, last, searched: bool, recorded: bool) -> int:
    """Violations live at ``close``: none when the program has no negative rule, or when
    none was live at the last close and none was recorded at this one (live ones only
    leave as closes pass); else one read of the violations table."""
    if not searched or (not recorded and last is not None and last.violations == 0):
        return 0
    return viol.count_live(home, view, close)


@dataclass
class Repaired:
    decision: object  # repair.preferred.Decision
    seed: object = None  # the new pane's surviving items (s, p, o, origin, rule)
    base: object = None  # the materialization without the over-deleted facts
    deleted: object = None  # over-deleted rows (s, p, o, origin, rule); None: nothing old lost
    restore: object = None  # candidates that re-derive over-deleted facts


def repair_step(home: Home, compiled: Compiled, close: int, last, upto_seq: int, seq: int, base) -> Repaired:
    """DESIGN §3 step 3: conflicts of the new items against the repaired window, the losers
    tombstoned, their consequences deleted and set up for re-derivation."""
    decl, spark = compiled.decl, home.spark
    before = rep.tombstones(home, decl.name, before=close)
    items = rep.window_items(home, decl.stream, decl.window, close, upto_seq, before)
    if last is None:
        is_new = F.lit(True)
        new_items = items
    else:  # the new pane, and late arrivals still inside the window
        is_new = (F.col("ts") > last.close) | (F.col("ingest_seq") > last.events_seq)
        new_items = rep.window_items(home, decl.stream, decl.window, close, upto_seq, before, after=last.close)
        if last.events_seq < upto_seq:
            new_items = new_items.unionByName(
                items.where((F.col("ts") <= last.close) & (F.col("ingest_seq") > last.events_seq)))
    with step("repair: conflicts"):
        decision = rep.decide_close(spark, compiled.repair, items.where(~is_new), new_items,
                                    compiled.tables.background)
    if not decision.removals:
        return Repaired(decision)
    with step("repair: tombstones"):
        items = items.localCheckpoint()  # read several times below
        losers = rep.losers_frame(spark, decision)
        tomb = rep.tombstone_rows(items, losers, decl.window, close).localCheckpoint()
        rep.write_tombstones(home, decl.name, tomb, seq)
    faults.reached("tombstones")
    survivors = items.join(tomb.select("s", "p", "o", "ts"), ["s", "p", "o", "ts"], "left_anti")
    seed = survivors.where(is_new).groupBy("s", "p", "o").agg(F.max("ts").alias("origin")).select(
        "s", "p", "o", "origin", F.lit("explicit").alias("rule"))
    # Old items that lost: the facts they gave their origin to leave, then come back from
    # whatever support remains (delete and re-derive).
    with step("repair: lost facts"):
        lost_items = items.join(tomb.select("s", "p", "o", "ts"), ["s", "p", "o", "ts"], "left_semi")
        old_lost = lost_items.where(~is_new).groupBy("s", "p", "o").agg(F.max("ts").alias("lost_ts"))
        hit = base.join(F.broadcast(old_lost), ["s", "p", "o"]).where(F.col("origin") <= F.col("lost_ts"))
        seeds = hit.select("s", "p", "o", "origin", "rule").localCheckpoint()
        if seeds.isEmpty():
            return Repaired(decision, seed=seed, base=base)
    with step("repair: over-delete"):
        deleted, n_deleted = dred.overdelete(spark, base, seeds, compiled.tables)
    with step("repair: remaining"):
        gone = deleted.select("s", "p", "o")
        if n_deleted <= BROADCAST_ROWS:  # the table is anti-joined in place, never shuffled
            gone = F.broadcast(gone)
        remaining = base.join(gone, ["s", "p", "o"], "left_anti").localCheckpoint()
    with step("repair: re-derive seed"):
        restore = dred.rederive_seed(spark, remaining, deleted, survivors.where(~is_new), compiled.tables)
    return Repaired(decision, seed=seed, base=remaining, deleted=deleted, restore=restore)


def _replace_panes(home: Home, decl: ViewDecl, result, stats: ChangeStats, drop_upto: int | None) -> bool:
    """Publish a close run from the resident facts by writing again the panes it touched
    (expiry in the same commit); False when a MERGE writes less (nothing written then)."""
    if result.local is None or not (stats.n or drop_upto is not None):
        return False
    window = decl.window
    panes = set(result.local.changed.select(mat.pane_of(pl.col("origin"), window).unique()).to_series().to_list())
    panes.update(_renewed_panes(result, window))
    return mat.replace_panes(home, decl.name, window, result.local.known, panes, drop_upto)


def _renewed_panes(result, window) -> list[int] | None:
    """The panes renewed facts leave, from the driver's rows (None: the step ran on Spark)."""
    if result.local is None:
        return None
    renewed = result.local.changed.filter(pl.col("prev_origin").is_not_null())
    return sorted(renewed.select(mat.pane_of(pl.col("prev_origin"), window).unique()).to_series().to_list())


@dataclass(frozen=True)
class ChangeStats:
    n: int
    derived: int
    renewed: int


def change_stats(result) -> ChangeStats:
    """Counts of a fixpoint result's changes: from the driver's rows when the step ran
    there, else one Spark job."""
    if result.local is not None:
        rows = result.local.changed
        return ChangeStats(n=rows.height, derived=rows.filter(pl.col("rule") != "explicit").height,
                           renewed=rows.filter(pl.col("prev_origin").is_not_null()).height)
    row = result.changes.agg(
        F.count("*").alias("n"),
        F.sum(F.when(F.col("rule") != "explicit", 1).otherwise(0)).alias("derived"),
        F.sum(F.when(F.col("prev_origin").isNotNull(), 1).otherwise(0)).alias("renewed"),
    ).first()
    return ChangeStats(n=row.n, derived=row.derived or 0, renewed=row.renewed or 0)


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
        record, checked = _materialize(home, compiled, close, state.latest_ingest_seq(home), seq, steps=steps)
    faults.reached("rebuild: published")
    state.append(home, view, record)
    steps.advance("record close")
    expect.act(decl, checked)
    return record


def _rebuild_close(decl, history, at: int, now: int, rewind: bool) -> int:
    """``at`` itself, if it is a close a rebuild may take: one already processed (or, before
    any, one already past). A later close would publish a window the next slide cannot
    follow (events up to it would never be admitted)."""
    from reasonlake.engine.read import check_close

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


MATERIALIZE_STEPS = 4  # the steps `_materialize` tells: admit, rounds, violations, publish


def _materialize(home: Home, compiled: Compiled, close: int, upto_seq: int, seq: int, *,
                 lost=None, mode: str = "rebuild", repairs: int = 0,
                 steps: Steps | None = None) -> tuple[state.Published, expect.Outcome | None]:
    """The window at ``close`` closed from scratch and written in one overwrite commit.
    Items tombstoned by repair up to that close stay out, and so do ``lost`` (s, p, o, ts)."""
    from reasonlake.engine.admit import explicit_items, stream_events

    decl, window, view = compiled.decl, compiled.decl.window, compiled.decl.name
    started = time.perf_counter()
    steps = steps or Steps()
    events = stream_events(home, decl.stream, upto_seq, window.opens(close), close)
    if compiled.repair is not None:  # items removed by repair stay removed
        removed = rep.tombstones(home, view, before=close + 1)
        if lost is not None:
            removed = removed.unionByName(lost.select("s", "p", "o", "ts"))
        removed = removed.select(F.col("s").alias("s_id"), F.col("p").alias("p_id"), F.col("o").alias("o_id"), "ts")
        events = events.join(removed, ["s_id", "p_id", "o_id", "ts"], "left_anti")
    with step("admit"):
        items = explicit_items(events).localCheckpoint()
    steps.advance("admit")
    empty = home.spark.createDataFrame([], "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING")
    with step("rounds"):
        result = run_fixpoint(home.spark, empty, _seed(compiled, items.drop("n"), first=True), compiled.tables)
    steps.advance("rounds")
    with step("violations"):
        found = find_violations(home.spark, empty, result, compiled.tables, terms=lambda: home.table("terms"))
        if found is not None:
            viol.replace(home, view, window, found, close)
    steps.advance("violations")
    with step("publish"):
        file_list.settle(home.spark, home.mat_path(view))
        mat.overwrite(home, view, window, result.changes, close)
    steps.advance("publish")
    file_list.rebuild_ahead(home.spark, home.mat_path(view))
    if result.local is not None and compiled.repair is None:
        resident.keep(home, view, decl.fingerprint(), result.local.known)
    stats = change_stats(result)
    version = mat.version(home, view)
    checked = expect.after_close(home, decl, close, version, upto_seq)
    record = state.Published(
        seq=seq, close=close, version=version, mode=mode,
        events_seq=upto_seq, admitted=int(items.agg(F.sum("n")).first()[0] or 0), expired=0,
        derived=stats.derived,
        renewed=0, rounds=result.rounds, late=0, seconds=round(time.perf_counter() - started, 3),
        violations=viol.count_live(home, view, close) if found is not None else 0,
        repairs=repairs,
        violations_version=viol.version(home, view) if found is not None else None,
        **expect.record_fields(decl, checked),
    )
    return record, checked


def repair_job(home: Home, view: str, progress: Progress | None = None) -> tuple[state.Published | None, int]:
    """Re-check the whole current window and repair what it finds (after a TBox change or a
    restore): every item is taken as entering, in time order, so the result is the window
    repair of the window as it is (Definition 7); idempotent.

    Returns the published record (None: nothing to repair) and the number of removals.
    ``progress``: told of each step (the conflicts found, then the rebuild's)."""
    with lease.writing(home, view, "repair"):
        return _repair_job(home, view, progress)


def _repair_job(home: Home, view: str, progress: Progress | None) -> tuple[state.Published | None, int]:
    decl = home.view(view)
    if decl.repair == "none":
        raise ViewDeclarationError(f"view '{view}' has repair: none; set repair: newest-wins in its file and "
                        "run `reasonlake view create FILE --rebuild`")
    history, seq = state.lineage_and_next_seq(home, view)
    if not history:
        raise CloseError(f"view '{view}' has no processed close yet; run `reasonlake slide {view}`")
    compiled = compile_view(home, decl)
    # conflicts; the window built again; repair log, tombstones, record close
    steps = Steps(progress, 1 + MATERIALIZE_STEPS + 3).start()
    last = history[-1]
    close, upto_seq = last.close, last.events_seq
    before = rep.tombstones(home, view)
    items = rep.window_items(home, decl.stream, decl.window, close, upto_seq, before).localCheckpoint()
    decision = rep.decide_close(home.spark, compiled.repair, None, items, compiled.tables.background)
    if not decision.removals:
        steps.advance("conflicts", last=True)
        return None, 0
    steps.advance("conflicts")
    tomb = rep.tombstone_rows(items, rep.losers_frame(home.spark, decision), decl.window, close).localCheckpoint()
    # Table first, then the log and the tombstones (both idempotent per seq), then the
    # state: a re-run after a crash anywhere finds the same conflicts or none left.
    record, checked = _materialize(home, compiled, close, upto_seq, seq, lost=tomb, mode="repair",
                                   repairs=len(decision.removals), steps=steps)
    rep.log_repairs(home, view, decision, close, seq, record.version, "repair")
    steps.advance("repair log")
    rep.write_tombstones(home, view, tomb, seq)
    steps.advance("tombstones")
    state.append(home, view, record)
    steps.advance("record close")
    expect.act(decl, checked)
    return record, len(decision.removals)
