"""A close that reads the view's table and runs its rounds through Spark."""
from __future__ import annotations

from pyspark.sql import functions as F

from reasonlake.engine.jobs.close.common import Close
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.reason import budget
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.spark_rounds import BROADCAST_ROWS, run_fixpoint
from reasonlake.engine.steps import repair_step as rep
from reasonlake.engine.reason.fixpoint_result import change_summary
from reasonlake.engine.steps.after_rounds import replace_panes
from reasonlake.engine.store import facts_here, file_list, repair_tables, view_decoding
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store.arrow_bridge import from_spark
from reasonlake.spark import observed


class SparkClose(Close):
    """A close from the table: the table read once (without the expired panes), repair and
    rounds through Spark, then one commit that drops the expired panes and writes the
    touched ones again (a DELETE and a MERGE where the touched panes are many, or for a
    repair view, whose expiry commits first)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.base = None  # the table after expiry (and repair), read once through Spark
        self.here: facts_here.FactsHere | None = None  # the same, read by this process instead
        self.base_rows: int | None = None  # its rows, counted as it was read (None: not counted)
        self.dropping = False  # expired partitions still to drop (with the publish, in one commit)
        self.after: PanedFacts | None = None  # the table's facts after the close, when the publish built them

    @classmethod
    def taking_over(cls, driver: Close) -> SparkClose:
        """A driver close that outgrew the driver, from its admission on: its expired
        partitions dropped, the table read, the rounds run on Spark."""
        close = cls(driver.home, driver.compiled, driver.close, driver.last, driver.upto_seq, driver.seq)
        close.started, close.expired = driver.started, driver.expired
        close.admission, close.late = driver.admission, driver.late
        file_list.settle(close.home.spark, close.mat_path)
        if driver.dropping:
            mat.drop_expired(close.home, close.decl.name, close.close)
        close.base = close._read_table()
        return close.reason()

    def expire(self) -> None:
        home, name = self.home, self.decl.name
        file_list.settle(home.spark, self.mat_path)  # the table is read and changed from the start
        with step("expire"):
            if self.compiled.repair is not None:  # repair reads and changes the table after expiry
                self.expired = mat.expire(home, name, self.close)
                repair_tables.expire(home, name, self.close)
            else:  # dropped by the publish's commit: one commit, and no new snapshot to read;
                # counted as the table is read (``_read_table``), by the job that reads it
                self.expired = None
        faults.reached("expire")

    def _expiring(self, rows: int) -> None:
        """The rows leaving the window at this close, counted: the publish drops their panes."""
        self.expired = rows
        self.dropping = rows > 0

    def _read_table(self):
        """The table after expiry: where this process reads the home's files and the view
        has no repair, opened here (``facts_here``: counted now, its facts read as the rounds
        and the publish ask), else read through Spark (``_spark_base``)."""
        if self.compiled.repair is None:
            with step("read materialization"):
                self.here = facts_here.at_close(self.home, self.decl.name, self.close)
            if self.here is not None:
                self.base_rows = self.here.rows
                if self.expired is None:  # the log's partition values, read here: no job
                    self._expiring(mat.expiring(self.home, self.decl.name, self.close))
                return None
        return self._spark_base()

    def _spark_base(self):
        """The table after expiry as a Spark frame, read and checkpointed on first use."""
        if self.base is not None:
            return self.base
        with step("read materialization"):
            # The table after expiry, read once: every round joins it, and a Delta scan per
            # round (snapshot, file index, deletion vectors) costs far more than one local copy.
            table, live = mat.current(self.home, self.decl.name), F.col("exp_pane") > self.close
            columns = ["s", "p", "o", "origin", "rule"]
            if self.expired is None:  # the rows leaving counted by the same job (expire)
                base, counted = observed.checkpointed_where(
                    table, live, columns, rows=F.count_if(live), expired=F.count_if(~live))
                self._expiring(counted["expired"])
            else:
                base, counted = observed.checkpointed(table.where(live).select(*columns), rows=F.count(F.lit(1)))
            self.base_rows = counted["rows"]
            self.base = base
            return base

    def admit(self) -> None:
        self.base = self._read_table()
        # a close whose rounds will run in the driver over the facts they fetch (a table too
        # large for the driver) takes its new pane there too, read by delta-rs where the home
        # allows it; repair reads it on Spark
        super().admit(driver_rows=self._driver_rows())

    def _driver_rows(self) -> int:
        """The rows of the new pane the admission may take into the driver: those a fetching
        close's rounds have room for, or a table read here that fits the driver leaves."""
        if self._fetching():
            return budget.neighbourhood_rows()
        if self.here is not None and budget.enabled(self.base_rows):
            return budget.LOCAL_ROWS - self.base_rows
        return 0

    def _fetching(self) -> bool:
        """Whether the rounds may fetch what they look up from the table (decision 0057)."""
        return (self.compiled.repair is None and bool(self.base_rows) and not budget.enabled(self.base_rows)
                and budget.neighbourhood_rows() > 0)

    def repair(self) -> None:
        if self.compiled.repair is None:
            return
        with step("repair"):
            self.repaired = rep.run(self.home, self.compiled, self.close, self.last, self.upto_seq, self.seq,
                                    self.base)
        if self.repaired.decision.removals:
            self.base, self.base_rows = self.repaired.base, None

    def reason(self) -> Close:
        with step("rounds"):
            admission, background = self.admission, self.compiled.tables.background
            # the admitted rows, when the close took them in the driver, are the whole seed
            # unless repair or the background (first close) adds to it
            only_admitted = (admission.rows is not None and self.repaired is None
                             and (self.last is not None or background is None))
            result = run_fixpoint(self.home.spark, self._spark_base, self.seed_frame, self.compiled.tables,
                                  known_rows=self.base_rows, summary=lambda: change_summary(self.decl.window),
                                  unique_seed_rows=self._unique_seed_rows(),
                                  seed_rows=admission.rows.drop("n") if only_admitted else None,
                                  # a repair view's rounds stay with its repair, on Spark
                                  fetching=self.compiled.repair is None, here=self.here)
            self._reasoned(result)
        return self

    def _unique_seed_rows(self) -> int | None:
        """The seed's rows when it is the admitted items alone (one row per triple, counted
        as they were admitted); None when repair or the background adds to it."""
        repaired = self.repaired
        only_items = repaired is None or (not repaired.decision.removals and repaired.restore is None)
        background = self.last is None and self.compiled.tables.background is not None
        return self.admission.distinct if only_items and not background else None

    def find_violations(self) -> None:
        super().find_violations(None if self.result.in_driver else self._spark_base(), self.base_rows)

    def publish(self) -> None:
        home, decl, repaired = self.home, self.decl, self.repaired
        file_list.settle(home.spark, self.mat_path)
        with step("publish"):
            if repaired is not None and repaired.deleted is not None:
                mat.publish_repaired(home, decl.name, decl.window, repaired.base, self.result.changes,
                                     repaired.deleted)
            elif (touched := self._touched_panes()) is not None:
                if not self._rewritten_by_driver(touched):
                    mat.publish_rewritten(home, decl.name, decl.window, self._spark_base(), self.result.changes, touched,
                                          self.close if self.dropping else None, small=self.stats.n <= BROADCAST_ROWS)
            else:
                if self.dropping:
                    mat.drop_expired(home, decl.name, self.close)
                if self.stats.n:
                    mat.publish(home, decl.name, decl.window, self.result.changes,
                                old_panes=self.result.renewed_panes(decl.window) if self.stats.renewed else [])
        self._published()

    def _rewritten_by_driver(self, touched: list[int]) -> bool:
        """A close whose rounds ran in the driver, on a home the driver writes
        (``replaces_in_driver``): the touched panes written again by this process in one
        commit with the expiry (``replace_panes``), as the driver backend publishes. Their
        facts are the rounds' when the rounds held the whole table; when they fetched what
        they looked up, the panes' rows are read (here where the home allows it, else
        collected through Spark: one job) and the changes applied to them. False (nothing
        written) elsewhere, or past the driver's room."""
        local, decl = self.result.local, self.decl
        if not self.result.in_driver or not self.home.access.replaces_in_driver(self.mat_path):
            return False
        pane_of = lambda origin: mat.pane_of(origin, decl.window)  # noqa: E731
        self.after = self.result.whole_table(decl.window)  # kept for the next close (``_kept``)
        if self.after is not None:
            return replace_panes(self.home, decl, self.after, set(touched), self.close if self.dropping else None)
        room = max(budget.neighbourhood_rows() - local.changed.height, 0)
        # read here, the table as the rounds read it (a collect through Spark took 2.9 s of a
        # 200k-item close, this read 0.1-0.3 s); every touched pane is live at this close
        rows = None if self.here is None else self.here.panes(touched, room)
        if rows is None:
            panes = ", ".join(str(p) for p in touched)
            in_touched = self._spark_base().where(
                f"{view_decoding.expiration_pane(decl.window, 'origin')} IN ({panes})")
            rows = from_spark(in_touched, limit=room, most=self.base_rows)
        if rows is None:
            return False
        facts, _ = PanedFacts.of(rows, pane_of("origin")).changed(local.changed, pane_of)
        return replace_panes(self.home, decl, facts, set(touched), self.close if self.dropping else None)

    def _kept(self) -> PanedFacts | None:
        return self.after if self.after is not None else super()._kept()

    def _touched_panes(self) -> list[int] | None:
        """The panes the changes touch, where writing them again from the table as read
        beats a MERGE (their rows, estimated as the table's share, within
        ``mat.REPLACE_ROWS``); else None, and None without a change (an expiry alone is a
        DELETE: no write). Known from the rounds' summary, no job."""
        window = self.decl.window
        if not self.stats.n or self.repaired is not None or self.base_rows is None:
            return None
        summary = self.result.panes(window)
        if summary is None:
            return None
        panes = sorted({*summary["new_panes"], *(summary.get("old_panes") or [])})
        live = 1 if window.landmark else max(1, -(-window.width // window.slide))  # panes its facts spread over
        if self.base_rows * min(1.0, len(panes) / live) + self.stats.n > mat.REPLACE_ROWS:
            return None
        return panes

