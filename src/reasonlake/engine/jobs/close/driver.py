"""A close run from the facts this process keeps in the driver (``resident``)."""
from __future__ import annotations

from reasonlake.engine.jobs.close.common import Close
from reasonlake.engine.jobs.close.spark import SparkClose
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.reason import budget
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.spark_rounds import run_resident
from reasonlake.engine.steps.after_rounds import replace_panes
from reasonlake.engine.store import file_list
from reasonlake.engine.store import materialization as mat


class DriverClose(Close):
    """A close from the facts held in the driver: no table read; expiry and the panes the
    close touched published in one commit when they are few."""

    def __init__(self, *args, facts: PanedFacts):
        super().__init__(*args)
        self.facts = facts  # the table's facts, by pane; after ``publish``, as the close leaves them
        self.dropping = False  # expired partitions still to drop (with the publish, in one commit)

    def expire(self) -> None:
        with step("expire"):
            self.facts, self.expired = self.facts.expire(self.close)
            self.dropping = self.expired > 0
        faults.reached("expire")

    def admit(self) -> None:
        super().admit(driver_rows=budget.LOCAL_ROWS - self.facts.height)

    def reason(self) -> Close:
        """This close, reasoned; a Spark close that goes on from the table when the step
        outgrows the driver."""
        admission, tables = self.admission, self.compiled.tables
        with step("rounds"):
            # the admitted rows are the whole seed unless the background joins it (first close)
            only_admitted = admission.rows is not None and (self.last is not None or tables.background is None)
            result = run_resident(self.home.spark, self.facts, None if only_admitted else self.seed_frame(), tables,
                                  seed_rows=admission.rows.drop("n") if only_admitted else None)
        if result is not None:
            self._reasoned(result)
            return self
        return SparkClose.taking_over(self)

    def publish(self) -> None:
        home, decl = self.home, self.decl
        file_list.settle(home.spark, self.mat_path)
        with step("publish"):
            self.facts, touched = self.facts.changed(self.result.local.changed,
                                                     lambda origin: mat.pane_of(origin, decl.window))
            replaced = replace_panes(home, decl, self.facts, touched, self.close if self.dropping else None)
        if self.dropping and not replaced:
            mat.drop_expired(home, decl.name, self.close)
        if self.stats.n and not replaced:
            with step("publish"):
                mat.publish(home, decl.name, decl.window, self.result.changes,
                            old_panes=self.result.renewed_panes(decl.window) if self.stats.renewed else [])
        self._published()

    def _kept(self) -> PanedFacts:
        return self.facts

