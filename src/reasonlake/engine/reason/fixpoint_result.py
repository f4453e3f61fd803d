"""What a step's rounds leave, wherever they ran: the changes (new or renewed facts), their
counts, the panes they touch or leave, and the facts a close may keep for the next. A step
run in the driver (``driver_rounds.Step``) answers from its rows; a step on Spark from the
aggregates its rounds observed as they checkpointed the changes (``change_summary``), else
one job. Callers ask the result, not which engine ran it."""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.reason import driver_rounds, spark_joins
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.store import materialization as mat


@dataclass(frozen=True)
class ChangeStats:
    n: int
    derived: int
    renewed: int


@dataclass
class FixpointResult:
    spark_changes: DataFrame | None  # None: the driver step's, made when asked for
    rounds: int
    local: driver_rounds.Step | None = None  # the step's facts in the driver, when it ran there
    # a step on Spark: the values of the aggregates its caller asked for over the changes
    # (``run_fixpoint``'s ``summary``), and the changes' size and what they hold when the
    # program searches violations (None: not asked, or no change)
    summary: dict | None = None
    changed: tuple[int, spark_joins.Present] | None = None

    @property
    def changes(self) -> DataFrame:
        """s, p, o, origin, rule, prev_origin (null when the fact is new)."""
        return self.spark_changes if self.spark_changes is not None else self.local.changes

    @property
    def in_driver(self) -> bool:
        """The rounds ran in the driver: their rows are here (``local``)."""
        return self.local is not None

    def stats(self) -> ChangeStats:
        """Counts of the changes: from the driver's rows when the step ran there, else from
        the summary the rounds observed (``change_summary``), else one Spark job."""
        if self.local is not None:
            rows = self.local.changed
            return ChangeStats(n=rows.height, derived=rows.filter(pl.col("rule") != "explicit").height,
                               renewed=rows.filter(pl.col("prev_origin").is_not_null()).height)
        if self.rounds == 0:  # no Δ: no change
            return ChangeStats(n=0, derived=0, renewed=0)
        row = self.summary
        if row is None or "n" not in row:
            row = self.changes.agg(*(c.alias(k) for k, c in change_summary().items())).first().asDict()
        return ChangeStats(n=row["n"], derived=row["derived"] or 0, renewed=row["renewed"] or 0)

    def renewed_panes(self, window) -> list[int] | None:
        """The panes renewed facts leave, from the driver's rows or the summary of a step on
        Spark (None: neither holds them)."""
        if self.local is None:
            panes = (self.summary or {}).get("old_panes")
            return None if panes is None else sorted(panes)
        renewed = self.local.changed.filter(pl.col("prev_origin").is_not_null())
        return sorted(renewed.select(mat.pane_of("prev_origin", window).unique()).to_series().to_list())

    def panes(self, window) -> dict | None:
        """The panes the changes enter (``new_panes``) and those renewed facts leave
        (``old_panes``), as ``change_summary`` observes them on Spark; from the rows in the
        driver. None: a step on Spark not asked for them."""
        if self.local is None:
            return self.summary if self.summary is not None and "new_panes" in self.summary else None
        new = self.local.changed.select(mat.pane_of("origin", window).unique())
        return {"new_panes": new.to_series().to_list(), "old_panes": self.renewed_panes(window)}

    def whole_table(self, window) -> PanedFacts | None:
        """Every fact of the table after the step, by pane, where the driver's rounds held the
        whole of it (not what they fetched of a table on Spark: ``Step.partial``); None
        elsewhere."""
        if self.local is None or self.local.partial:
            return None
        return PanedFacts.of(self.local.known, mat.pane_of("origin", window))

    def none_found(self) -> bool:
        """The violation search ran in the driver, over these rows, and found none: nothing to
        record, and no job to ask."""
        return self.local is not None and self.local.violations_found == 0


def change_summary(window=None) -> dict:
    """``FixpointResult.stats``'s counts as aggregates over the changes of a step on Spark,
    computed as the rounds checkpoint them (``run_fixpoint``'s ``summary``); with ``window``,
    also the panes the changes enter and those renewed facts leave (``panes``, which the
    MERGE names)."""
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
