"""A view's rules compiled and encoded, kept per process for as long as its definition holds.

Compiling reads the ontology, runs the rule compiler and encodes the rules as small Spark
tables (``program_tables``); a job that slides several times, or several views over one
TBox, does it once: the compiled view is kept in the session's process cache, by view and
fingerprint (which covers the ontology texts, the profile and every option that changes
the rules). Term ids are hashes, so a compiled program does not depend on the lake.
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.repair.normal_form import for_view
from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.view import ViewDecl
from reasonlake.engine.steps import repair_step as rep
from reasonlake.engine.reason.program_tables import ProgramTables, encode_program
from reasonlake.engine.store import process_cache
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home
from reasonlake.engine.process.timing import step

_LIMIT = 8  # compiled views a session keeps; the oldest go first


@dataclass
class Compiled:
    decl: ViewDecl
    tables: ProgramTables
    repair: rep.RepairTables | None = None  # newest-wins: the conflict patterns
    terms: frozenset[str] = frozenset()  # the rules' constants and background terms (what a derived fact may hold)


def compile_view(home: Home, decl: ViewDecl) -> Compiled:
    """The view compiled, from the session's cache while its definition is unchanged."""
    kept = process_cache.of(home.spark).compiled
    key = (decl.name, decl.fingerprint())
    compiled = kept.get(key)
    if compiled is not None and compiled.decl == decl:
        return compiled
    if len(kept) >= _LIMIT:
        kept.pop(next(iter(kept)))
    compiled = kept[key] = _compile(home, decl)
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
        terms = program.terms() | {t for triple in background for t in triple}  # program.terms() has its own
        return Compiled(decl=decl, tables=encode_program(home.spark, program, extra_background=background),
                        repair=repair, terms=frozenset(terms))


def seed(compiled: Compiled, items, first: bool):
    """The step's candidate facts: the admitted items, and at a view's first close (or a
    rebuild) the background facts, which never expire."""
    background = compiled.tables.background
    if first and background is not None:
        return items.unionByName(background)
    return items


