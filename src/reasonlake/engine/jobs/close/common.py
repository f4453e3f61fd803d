"""What every close does the same way, wherever it reasons (``driver``, ``spark``)."""
from __future__ import annotations

import time

from reasonlake.engine.jobs import continuous_queries
from reasonlake.engine.jobs import expectations as expect
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.reason import resident
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.spark_rounds import find_violations
from reasonlake.engine.steps import repair_step as rep
from reasonlake.engine.steps.admit import Admission, admit, record_late
from reasonlake.engine.reason.fixpoint_result import ChangeStats, FixpointResult
from reasonlake.engine.steps.after_rounds import file_list_ahead, live_violations
from reasonlake.engine.steps.compiled import Compiled, seed
from reasonlake.engine.store import catalog, repair_tables, state
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home


class Close:
    """What every close does the same way, wherever it reasons."""

    def __init__(self, home: Home, compiled: Compiled, close: int, last: state.Published | None,
                 upto_seq: int, seq: int):
        self.home, self.compiled, self.decl = home, compiled, compiled.decl
        self.close, self.last, self.upto_seq, self.seq = close, last, upto_seq, seq
        self.started = time.perf_counter()
        self.expired = 0
        self.admission: Admission | None = None
        self.late = 0
        self.repaired: rep.Repaired | None = None
        self.result: FixpointResult | None = None
        self.stats: ChangeStats | None = None
        self.found = None  # the violations frame (None: the program searches none)
        self.recorded = False  # violations were written at this close
        self.version: int | None = None

    @property
    def mat_path(self) -> str:
        return self.home.mat_path(self.decl.name)

    def admit(self, driver_rows: int = 0) -> None:
        """The window's new pane and the late events (recorded with the close's seq)."""
        last = self.last
        with step("admit"):
            self.admission = admit(
                self.home, self.decl.stream, self.decl.window, self.close,
                previous=last.close if last else None,
                seen_seq=last.events_seq if last else self.upto_seq,
                upto_seq=self.upto_seq, driver_rows=driver_rows,
            )
            with step("admit: late"):
                self.late = record_late(self.home, self.decl.name, self.admission.late, self.close, self.seq)

    def repair(self) -> None:
        """Newest-wins repair of the new items (repair views only: a Spark close)."""
    def seed_frame(self):
        """The close's candidates as a Spark frame: the admitted items (those that survived
        repair), the background at a view's first close, and what repair re-derives."""
        repaired = self.repaired
        lost = repaired is not None and repaired.decision.removals
        items = repaired.seed if lost else self.admission.items.drop("n")
        frame = seed(self.compiled, items, first=self.last is None)
        if repaired is not None and repaired.restore is not None:
            frame = frame.unionByName(repaired.restore)
        return frame

    def _reasoned(self, result: FixpointResult) -> None:
        self.result = result
        faults.reached("reason")
        self.stats = result.stats()

    def find_violations(self, base=None, base_rows: int | None = None) -> None:
        """Violations the close's changes take part in, recorded when there are any."""
        result, tables = self.result, self.compiled.tables
        with step("violations"):
            self.found = find_violations(self.home.spark, base, result, tables,
                                         terms=lambda: self.home.table("terms"), base_rows=base_rows)
            # found in the driver, the search counted its rows: none, no commit (and no job to ask)
            self.recorded = self.found is not None and not result.none_found()
        if self.recorded:
            with step("record violations"):
                viol.record(self.home, self.decl.name, self.decl.window, self.found, self.close)

    def _published(self) -> None:
        faults.reached("publish")
        file_list_ahead(self.home, self.mat_path, self.result, self.compiled)  # while this one records itself
        self.version = mat.version(self.home, self.decl.name)
        kept = self._kept()
        if kept is not None:
            resident.keep(self.home, self.decl.name, self.decl.fingerprint(), kept)

    def _kept(self) -> PanedFacts | None:
        """The table's facts after this close, to keep in the driver for the next (None:
        they are not all here)."""
        return None if self.compiled.repair is not None else self.result.whole_table(self.decl.window)

    def record(self) -> state.Published:
        """The repair log, the registered queries' rows, the expectations, then the close's
        record: readers see it from here."""
        home, decl, repaired = self.home, self.decl, self.repaired
        if repaired is not None:
            with step("repair log"):
                repair_tables.log_repairs(home, decl.name, repaired.decision, self.close, self.seq, self.version, "slide")
            faults.reached("repair log")
        if decl.queries:  # imported here: a view without registered queries never loads the SPARQL compiler

            continuous_queries.after_publish(home, decl, self.close, self.version,
                                             [r for r in state.lineage(home, decl.name) if r.close < self.close])
        checked = expect.after_close(home, decl, self.close, self.version, self.upto_seq)
        searched = self.found is not None
        record = state.Published(
            seq=self.seq, close=self.close, version=self.version, mode="slide",
            events_seq=self.upto_seq, admitted=self.admission.count, expired=self.expired,
            derived=self.stats.derived, renewed=self.stats.renewed, rounds=self.result.rounds,
            late=self.late, seconds=round(time.perf_counter() - self.started, 3),
            violations=live_violations(home, decl.name, self.close, self.last, searched, self.recorded),
            repairs=len(repaired.decision.removals) if repaired is not None else 0,
            violations_version=viol.version(home, decl.name) if searched else None,
            **expect.record_fields(decl, checked),
        )
        with step("record close"):
            state.append(home, decl.name, record)
            catalog.show(home, decl.name, record)
        expect.act(decl, checked)
        return record

