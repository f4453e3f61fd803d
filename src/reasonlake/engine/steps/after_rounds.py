"""What a close (or a rebuild) does after its rounds (whose result answers its own counts and
panes: ``fixpoint_result``): the touched panes written again (``replace_panes``), the
violations live after it, and the file list built ahead for the next."""
from __future__ import annotations

from reasonlake.engine.reason.fixpoint_result import FixpointResult
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.steps.compiled import Compiled
from reasonlake.engine.store import file_list
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home


def file_list_ahead(home: Home, path: str, result: FixpointResult, compiled: Compiled) -> None:
    """After a commit of the view's table, its file list built ahead for the next close,
    unless that close will run from the facts kept in the driver, or read the table here
    (``facts_here``), and publish by this process (``replaces_in_driver``): it then needs no
    file list of Delta's, and building one would take a core from it."""
    here = result.in_driver and home.access.folder(path) is not None
    if not here or compiled.repair is not None or not home.access.replaces_in_driver(path):
        file_list.rebuild_ahead(home.spark, path)


def live_violations(home: Home, view: str, close: int, last, searched: bool, recorded: bool) -> int:
    """Violations live at ``close``: none when the program has no negative rule, or when
    none was live at the last close and none was recorded at this one (live ones only
    leave as closes pass); else one read of the violations table."""
    if not searched or (not recorded and last is not None and last.violations == 0):
        return 0
    return viol.count_live(home, view, close)


def replace_panes(home: Home, decl, facts: PanedFacts, touched: set[int], drop_upto: int | None) -> bool:
    """Publish a close run from the resident facts by writing again the panes it touched
    (``facts``: as the close leaves them; expiry in the same commit); False when a MERGE
    writes less (nothing written then)."""
    if not touched and drop_upto is None:
        return False
    return mat.replace_panes(home, decl.name, facts.rows_of(touched), touched, drop_upto)
