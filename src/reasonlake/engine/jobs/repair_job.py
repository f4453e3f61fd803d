"""The repair job: the whole current window checked again and repaired (after a TBox change
or a restore), then materialized again in one commit."""
from __future__ import annotations

from reasonlake.engine.jobs import expectations as expect
from reasonlake.engine.jobs.rebuild import MATERIALIZE_STEPS, materialize
from reasonlake.engine.process import faults
from reasonlake.engine.process.progress import Progress, Steps
from reasonlake.engine.steps import repair_step as rep
from reasonlake.engine.steps.compiled import compile_view
from reasonlake.engine.store import catalog, lease, repair_tables, state
from reasonlake.engine.store.home import Home
from reasonlake.errors import CloseError, ViewDeclarationError


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
    before = repair_tables.tombstones_before(home, view, seq)
    items = rep.window_items(home, decl.stream, decl.window, close, upto_seq, before).localCheckpoint()
    decision = rep.decide_close(home.spark, compiled.repair, None, items, compiled.tables.background)
    if not decision.removals:
        steps.advance("conflicts", last=True)
        return None, 0
    steps.advance("conflicts")
    tomb = rep.tombstone_rows(items, rep.losers_frame(home.spark, decision), decl.window, close).localCheckpoint()
    # Table first, then the log and the tombstones (both idempotent per seq), then the
    # state: a re-run after a crash anywhere finds the same conflicts or none left.
    record, checked = materialize(home, compiled, close, upto_seq, seq, lost=tomb, mode="repair",
                                   repairs=len(decision.removals), steps=steps)
    faults.reached("repair job: published")
    repair_tables.log_repairs(home, view, decision, close, seq, record.version, "repair")
    steps.advance("repair log")
    faults.reached("repair job: logged")
    repair_tables.write_tombstones(home, view, tomb, seq)
    steps.advance("tombstones")
    faults.reached("repair job: tombstones")
    state.append(home, view, record)
    catalog.show(home, view, record)
    steps.advance("record close")
    expect.act(decl, checked)
    return record, len(decision.removals)
