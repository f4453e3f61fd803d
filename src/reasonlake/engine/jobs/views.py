"""Creating and changing views: the `views` registry and each view's materialization table."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.view import ViewDecl
from reasonlake.engine.jobs.rebuild import rebuild as rebuild_view
from reasonlake.engine.jobs.repair_job import repair_job
from reasonlake.engine.process import faults
from reasonlake.engine.store import delta_sql, lease, repair_tables, session_marks, state
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as violations
from reasonlake.engine.store.dictionary import register_vocabulary
from reasonlake.engine.store.home import PENDING, REPAIRING, Home
from reasonlake.errors import ViewChangedError
from reasonlake.repair.normal_form import for_view
from reasonlake.vocab import TYPE


@dataclass(frozen=True)
class CreateReport:
    name: str
    outcome: str  # created | unchanged | rebuilt
    ignored: tuple[tuple[str, str], ...]  # axioms the profile does not use
    active: dict
    rebuilt: object = None  # the close record a rebuild published (state.Published), if any


@dataclass(frozen=True)
class CheckedView:
    """A declaration compiled and checked against the registry, nothing written yet."""
    decl: ViewDecl
    program: object
    background: frozenset
    existing: bool
    unchanged: bool
    saved: str | None = None  # the registered definition (JSON)
    # a `view create --rebuild` that stopped in its repair job, after its rebuild was recorded
    repairing: bool = False


def check_views(home: Home, decls: list[ViewDecl], *, rebuild: bool) -> list[CheckedView]:
    """Every declaration compiled and checked before any is written: a call creating several
    views creates all of them or, naming the first problem, none."""
    by_folded: dict[str, ViewDecl] = {}
    for decl in decls:
        first = by_folded.setdefault(decl.name.lower(), decl)
        if first is not decl:
            raise ViewChangedError(
                f"view '{decl.name}' is declared twice in one call (as '{first.name}' too); "
                "view names are case-insensitive: give each view its own name", code="RL151")
    registered = {row.name: row for row in home.small_rows("views", ["name", "definition", "fingerprint"])}
    return [_check(home, decl, registered, rebuild) for decl in decls]


def _check(home: Home, decl: ViewDecl, registered: dict, rebuild: bool) -> CheckedView:
    clash = [name for name in registered if name.lower() == decl.name.lower() and name != decl.name]
    if clash:
        raise ViewChangedError(
            f"view '{decl.name}' would share its name with view '{clash[0]}' in SQL, where names "
            f"are case-insensitive; rename it or change '{clash[0]}' itself", code="RL151")
    program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
    background = load_tbox(decl.background) if decl.background else frozenset()
    if decl.repair != "none":

        for_view(decl, program)  # a recursive negative inclusion fails here, named
    existing = registered.get(decl.name)
    unchanged = existing is not None and existing.fingerprint == decl.fingerprint()
    # the same definition's create stopped half-way: this call finishes it (it had consent)
    repairing = existing is not None and existing.fingerprint == PENDING + REPAIRING + decl.fingerprint()
    resumed = repairing or (existing is not None and existing.fingerprint == PENDING + decl.fingerprint())
    if existing is not None and not unchanged and not rebuild and not resumed:
        old = ViewDecl.from_json(existing.definition)
        changed = [
            f for f, a, b in (
                ("stream", old.stream, decl.stream), ("profile", old.profile, decl.profile),
                ("window", old.window, decl.window),
                ("ontology", [o.text for o in old.ontology], [o.text for o in decl.ontology]),
                ("unique_names", old.unique_names, decl.unique_names),
                ("background", [o.text for o in old.background], [o.text for o in decl.background]),
                ("repair", (old.repair, old.repair_depth), (decl.repair, decl.repair_depth)),
            ) if a != b
        ]
        raise ViewChangedError(
            f"view '{decl.name}' exists with a different {', '.join(changed)}; pass --rebuild "
            "to rematerialize it from the events with the new definition"
        )
    return CheckedView(decl, program, background, existing is not None, unchanged,
                       existing.definition if existing is not None else None, repairing)


def create_view(home: Home, checked: CheckedView, *, now: int) -> CreateReport:
    decl, program = checked.decl, checked.program
    report = dict(name=decl.name, ignored=program.ignored, active=program.active_rules())
    if checked.unchanged:
        if checked.saved is not None and checked.saved != decl.to_json():  # retain, description
            _save(home, decl)
            return CreateReport(outcome="updated (same content)", **report)
        return CreateReport(outcome="unchanged", **report)
    if not checked.existing:  # nothing can be writing a view that does not exist yet
        with session_marks.marked(home.spark):
            return _create(home, checked, report, now)
    with lease.writing(home, decl.name, "view create"):  # a slide of the old definition must not overlap
        return _create(home, checked, report, now)


def _create(home: Home, checked: CheckedView, report: dict, now: int) -> CreateReport:
    decl, program, background = checked.decl, checked.program, checked.background
    # The dictionary must know the TBox terms that rules put into derived facts.
    vocabulary = sorted(program.terms() | {TYPE} | {t for triple in background for t in triple})
    register_vocabulary(home.spark, home.path("terms"), vocabulary)
    if checked.existing and not checked.repairing:  # the rebuild reads the new definition: saved first, as pending
        _save(home, decl, pending=True)  # a crash from here on: slides refuse, a re-run finishes
        faults.reached("view create: saved")
    mat.create(home, decl.name)
    if program.negative() or program.checks_literals:
        violations.create(home, decl.name)
    if decl.repair != "none":

        repair_tables.create(home, decl.name)
    if not checked.existing:
        # a new view's tables first, its definition last: a crash before this leaves no view
        # (the re-run creates it; the tables are made only where missing)
        faults.reached("view create: tables")
        _save(home, decl)
        return CreateReport(outcome="created", **report)
    # A changed definition: rematerialize at the last published close, from the events.
    history = state.lineage(home, decl.name)

    record = None
    if history:
        # at the last published close (at=None): under a changed window it need not be one
        # of the new window's closes, which a rebuild --at would require
        if not checked.repairing:  # else a stopped call recorded this rebuild already
            record = rebuild_view(home, decl.name, None, now=now)
        if decl.repair != "none":  # the new definition may find conflicts the old one did not

            # Marked first: a call stopped in the job goes on from the job, under the same
            # sequence number, not from another rebuild, whose close would take the number
            # the job's repair log and tombstones carry and hide the conflicts they record.
            _save(home, decl, pending=True, repairing=True)
            record = repair_job(home, decl.name)[0] or record or state.lineage(home, decl.name)[-1]
    else:
        mat.overwrite(home, decl.name, decl.window, home.spark.createDataFrame(
            [], "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING"))
    faults.reached("view create: rebuilt")
    _save(home, decl)
    return CreateReport(outcome="rebuilt", rebuilt=record, **report)


def _save(home: Home, decl: ViewDecl, pending: bool = False, repairing: bool = False) -> None:
    row = home.spark.createDataFrame(
        [(decl.name, PENDING * pending + REPAIRING * repairing + decl.fingerprint(), decl.to_json())],
        "name STRING, fingerprint STRING, definition STRING",
    ).withColumn("created_at", F.current_timestamp())
    delta_sql.merge(home.path("views"), row, "t.name = u.name",
                    update={"fingerprint": "u.fingerprint", "definition": "u.definition"})
