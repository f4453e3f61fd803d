"""What a close (or a rebuild) reads off its rounds' result, and what it leaves ready for the
next: the counts of its changes (from the driver's rows, or observed as Spark's rounds
checkpoint them), the panes renewed facts leave and the touched panes written again
(``replace_panes``), the violations live after it, and the file list built ahead."""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from pyspark.sql import functions as F

from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.spark_rounds import (
    FixpointResult,
)
from reasonlake.engine.steps.compiled import Compiled
from reasonlake.engine.store import file_list
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home


@dataclass(frozen=True)
class ChangeStats:
    n: int
    derived: int
    renewed: int


def file_list_ahead(home: Home, path: str, result: FixpointResult, compiled: Compiled) -> None:
    """After a commit of the view's table, its file list built ahead for the next close,
    unless that close will run from the facts kept in the driver, or read the table here
    (``facts_here``), and publish by this process (``replaces_in_driver``): it then needs no
    file list of Delta's, and building one would take a core from it."""
    here = result.local is not None and home.access.folder(path) is not None
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


def renewed_panes(result, window) -> list[int] | None:
    """The panes renewed facts leave, from the driver's rows or the summary of a step on
    Spark (``change_summary``; None: neither holds them)."""
    if result.local is None:
        panes = (result.summary or {}).get("old_panes")
        return None if panes is None else sorted(panes)
    renewed = result.local.changed.filter(pl.col("prev_origin").is_not_null())
    return sorted(renewed.select(mat.pane_of("prev_origin", window).unique()).to_series().to_list())


def change_summary(window=None) -> dict:
    """``change_stats``'s counts as aggregates over the changes of a step on Spark, computed
    as the rounds checkpoint them (``run_fixpoint``'s ``summary``); with ``window``, also the
    panes renewed facts leave (``old_panes``, which the MERGE names)."""
    counts = {
        "n": F.count(F.lit(1)),
        "derived": F.sum(F.when(F.col("rule") != "explicit", 1).otherwise(0)),
        "renewed": F.sum(F.when(F.col("prev_origin").isNotNull(), 1).otherwise(0)),
    }
    if window is not None:
        leaving = F.when(F.col("prev_origin").isNotNull(), mat.expiration_pane("prev_origin", window))
        counts["old_panes"] = F.collect_set(leaving)
        counts["new_panes"] = F.collect_set(mat.expiration_pane("origin", window))
    return counts


def change_stats(result) -> ChangeStats:
    """Counts of a fixpoint result's changes: from the driver's rows when the step ran
    there, else from the summary the rounds observed (``change_summary``), else one Spark
    job."""
    if result.local is not None:
        rows = result.local.changed
        return ChangeStats(n=rows.height, derived=rows.filter(pl.col("rule") != "explicit").height,
                           renewed=rows.filter(pl.col("prev_origin").is_not_null()).height)
    if result.rounds == 0:  # no Δ: no change
        return ChangeStats(n=0, derived=0, renewed=0)
    row = result.summary
    if row is None or "n" not in row:
        row = result.changes.agg(*(c.alias(k) for k, c in change_summary().items())).first().asDict()
    return ChangeStats(n=row["n"], derived=row["derived"] or 0, renewed=row["renewed"] or 0)
