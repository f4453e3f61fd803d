"""Property: at every close of generated streams that derive, expire and renew, every inferred
fact of the view has a derivation (``explain --why``) whose leaves are stream items of the
window at their own times, whose every step is a rule active in the view, and whose every
step's oldest premise is exactly the fact's origin (the derivation that gives the fact its
origin, IMaRS)."""
from __future__ import annotations

import polars as pl
import pytest

from tests.engine import packed

_CASES = 10


# owl2rl's rules include rdfs-plus's: the default suite runs owl2rl, the slow one both.
@pytest.mark.parametrize("profile,extra", [pytest.param("rdfs-plus", "", marks=pytest.mark.slow),
                                           ("owl2rl", "unique_names: false\n")],
                         ids=["rdfs-plus", "owl2rl-standard-equality"])
def test_every_inferred_fact_has_a_derivation_down_to_window_items(spark, tmp_path, profile, extra):
    from reasonlake.api import Lakehouse
    from reasonlake.compile.program import compile_program
    from reasonlake.compile.tbox import load_tbox
    from reasonlake.engine.reads import read
    from reasonlake.engine.reads.derivation import Deriver

    shape = (3000, 1000)
    lake = Lakehouse(str(tmp_path / "lake"), spark=spark)
    lake.init()
    cases = packed.generate(profile, _CASES, shapes=(shape,))
    view = packed.start(lake, tmp_path, cases, profile, "why", extra)[shape]
    decl = lake.home.view(view)
    tbox = load_tbox(decl.ontology)
    program = compile_program(tbox, profile, decl.unique_names)
    active = set(program.active_rules())
    explained = items_reached = 0
    late_in = False
    for close, _ in packed.closes(cases):
        if packed.late_due(cases, close) and not late_in:
            packed.ingest_late(lake, tmp_path, {shape: view})
            late_in = True
        lake.slide(view, until=close)
        facts = pl.from_arrow(read.facts(lake.home, view, close).toArrow())
        terms = {r.id: r.term for r in lake.home.table("terms").collect()}
        window = {c.number: packed.window(c, close) for c in cases}
        deriver = Deriver(facts, program, tbox)
        for s, p, o, origin, rule in facts.iter_rows():
            if rule == "explicit":
                continue
            step = deriver.explain((s, p, o))
            explained += 1
            stack = [step]
            while stack:
                at = stack.pop()
                triple = tuple(terms[i] for i in at.key)
                where = f"close {close}: {' '.join(triple)} (in the derivation of {terms[s]} {terms[p]} {terms[o]})"
                if at.rule is None:
                    assert at.background or (triple, at.origin) in window[packed.owner(triple[0])], \
                        f"{where}: a leaf that is no item of the window at {at.origin}"
                    items_reached += not at.background
                    continue
                assert at.rule in active, f"{where}: rule {at.rule} is not active in the view"
                if at.background:
                    continue
                assert at.premises, f"{where}: derived by {at.rule} from nothing"
                oldest = min(x.origin for x in at.premises)
                assert oldest == at.origin, f"{where}: its premises' oldest origin {oldest} is not its origin {at.origin}"
                stack.extend(at.premises)
    # the suite must explain something at every kind of step it claims to cover
    assert explained > 50 and items_reached > 50, (explained, items_reached)
