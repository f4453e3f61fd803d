"""Creating and changing views: the `views` registry and each view's materialization table."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import functions as F

from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.view import ViewDecl
from reasonlake.engine import materialization as mat
from reasonlake.engine import state, violations
from reasonlake.engine.home import Home
from reasonlake.engine.terms import register_terms
from reasonlake.errors import ViewChangedError
from reasonlake.vocab import TYPE


@dataclass(frozen=True)
class CreateReport:
    name: str
    outcome: str  # created | unchanged | rebuilt
    ignored: tuple[tuple[str, str], ...]  # axioms the profile does not use
    active: dict


def create_view(home: Home, decl: ViewDecl, *, rebuild: bool, now: int) -> CreateReport:
    program = compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)
    background = load_tbox(decl.background) if decl.background else frozenset()
    if decl.repair != "none":
        from reasonlake.compile.normal_form import for_view

        for_view(decl, program)  # a recursive negative inclusion fails here, named
    existing = home.table("views").where(F.col("name") == decl.name).collect()
    report = dict(name=decl.name, ignored=program.ignored, active=program.active_rules())
    if existing and existing[0].fingerprint == decl.fingerprint():
        return CreateReport(outcome="unchanged", **report)
    if existing and not rebuild:
        old = ViewDecl.from_json(existing[0].definition)
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
    # The dictionary must know the TBox terms that rules put into derived facts.
    vocabulary = sorted(program.terms() | {TYPE} | {t for triple in background for t in triple})
    register_terms(home.spark, home.path("terms"), home.spark.createDataFrame([(t,) for t in vocabulary], "term STRING"))
    _save(home, decl)
    mat.create(home, decl.name)
    if program.negative():
        violations.create(home, decl.name)
    if decl.repair != "none":
        from reasonlake.engine import repair

        repair.create(home, decl.name)
    if not existing:
        return CreateReport(outcome="created", **report)
    # A changed definition: rematerialize at the last published close, from the events.
    history = state.lineage(home, decl.name)
    from reasonlake.engine.slide import rebuild as rebuild_view

    if history:
        rebuild_view(home, decl.name, history[-1].close, now=now)
        if decl.repair != "none":  # the new definition may find conflicts the old one did not
            from reasonlake.engine.slide import repair_job

            repair_job(home, decl.name)
    else:
        mat.overwrite(home, decl.name, decl.window, home.spark.createDataFrame(
            [], "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING"))
    return CreateReport(outcome="rebuilt", **report)


def _save(home: Home, decl: ViewDecl) -> None:
    from delta.tables import DeltaTable

    row = home.spark.createDataFrame(
        [(decl.name, decl.fingerprint(), decl.to_json())],
        "name STRING, fingerprint STRING, definition STRING",
    ).withColumn("created_at", F.current_timestamp())
    (
        DeltaTable.forPath(home.spark, home.path("views")).alias("t")
        .merge(row.alias("u"), "t.name = u.name")
        .whenMatchedUpdate(set={"fingerprint": "u.fingerprint", "definition": "u.definition"})
        .whenNotMatchedInsertAll()
        .execute()
    )
