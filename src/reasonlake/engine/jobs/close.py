"""One window close of a view, as an object with one method per step (decisions 0004, 0008).

``start`` decides once where the close runs. A ``DriverClose`` starts from the facts this
process kept in the driver after publishing the table's latest commit (``resident``) and
reasons there; a ``SparkClose`` reads the table and runs its rounds through Spark (which
still brings them to the driver when the table and the seed fit its budget:
``spark_rounds.run_fixpoint``). A driver close whose step outgrows the budget hands over to
a Spark close at the rounds (``DriverClose.reason``) and goes on from the table.

The slide job calls the steps in order (``slide.process_close``): expire, admit, repair,
reason, find violations, publish, record. Every step is idempotent, so a re-run after a
crash anywhere gives the table an uninterrupted run gives.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import polars as pl
from pyspark.sql import functions as F

from reasonlake.engine.process import faults
from reasonlake.spark import observed
from reasonlake.engine.jobs import expectations as expect
from reasonlake.engine.steps import repair_step as rep
from reasonlake.engine.steps.admit import Admission, admit, record_late
from reasonlake.engine.store.arrow_bridge import from_spark
from reasonlake.engine.steps.compiled import Compiled, seed
from reasonlake.engine.reason import budget, resident
from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.reason.spark_rounds import (
    BROADCAST_ROWS,
    FixpointResult,
    find_violations,
    run_fixpoint,
    run_resident,
)
from reasonlake.engine.store import catalog, facts_here, file_list, state, view_decoding
from reasonlake.engine.store import materialization as mat
from reasonlake.engine.store import violations_table as viol
from reasonlake.engine.store.home import Home
from reasonlake.engine.process.timing import step


def start(home: Home, compiled: Compiled, close: int, last: state.Published | None, upto_seq: int,
          seq: int) -> Close:
    """The close, run in the driver when this process holds the table's facts, or can read
    them itself, and they fit the driver's budget (``budget.enabled``), else on Spark. Repair views always read the
    table: their step changes it in several places."""
    decl = compiled.decl
    facts = None
    if compiled.repair is None:
        facts = resident.take(home, decl.name, decl.fingerprint())
        if facts is None and last is not None:
            facts = resident.load(home, decl.name)
    if facts is not None and budget.enabled(facts.height):
        return DriverClose(home, compiled, close, last, upto_seq, seq, facts=facts)
    return SparkClose(home, compiled, close, last, upto_seq, seq)


@dataclass(frozen=True)
class ChangeStats:
    n: int
    derived: int
    renewed: int


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
        self.stats = change_stats(result)

    def find_violations(self, base=None, base_rows: int | None = None) -> None:
        """Violations the close's changes take part in, recorded when there are any."""
        result, tables = self.result, self.compiled.tables
        with step("violations"):
            self.found = find_violations(self.home.spark, base, result, tables,
                                         terms=lambda: self.home.table("terms"), base_rows=base_rows)
            # found in the driver, the search counted its rows: none, no commit (and no job to ask)
            self.recorded = self.found is not None and not (
                result.local is not None and result.local.violations_found == 0)
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
        if self.result.local is None or self.result.local.partial or self.compiled.repair is not None:
            return None
        return PanedFacts.of(self.result.local.known, mat.pane_of("origin", self.decl.window))

    def record(self) -> state.Published:
        """The repair log, the registered queries' rows, the expectations, then the close's
        record: readers see it from here."""
        home, decl, repaired = self.home, self.decl, self.repaired
        if repaired is not None:
            with step("repair log"):
                rep.log_repairs(home, decl.name, repaired.decision, self.close, self.seq, self.version, "slide")
            faults.reached("repair log")
        if decl.queries:  # imported here: a view without registered queries never loads the SPARQL compiler
            from reasonlake.engine.jobs import continuous_queries

            continuous_queries.after_publish(home, decl, self.close, self.version,
                                             [r for r in state.lineage(home, decl.name) if r.close < self.close])
        checked = expect.after_close(home, decl, self.close, self.version, self.upto_seq)
        searched = self.found is not None
        record = state.Published(
            seq=self.seq, close=self.close, version=self.version, mode="slide",
            events_seq=self.upto_seq, admitted=self.admission.count, expired=self.expired,
            derived=self.stats.derived, renewed=self.stats.renewed, rounds=self.result.rounds,
            late=self.late, seconds=round(time.perf_counter() - self.started, 3),
            violations=_live_violations(home, decl.name, self.close, self.last, searched, self.recorded),
            repairs=len(repaired.decision.removals) if repaired is not None else 0,
            violations_version=viol.version(home, decl.name) if searched else None,
            **expect.record_fields(decl, checked),
        )
        with step("record close"):
            state.append(home, decl.name, record)
            catalog.show(home, decl.name, record)
        expect.act(decl, checked)
        return record


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
            replaced = _replace_panes(home, decl, self.facts, touched, self.close if self.dropping else None)
        if self.dropping and not replaced:
            mat.drop_expired(home, decl.name, self.close)
        if self.stats.n and not replaced:
            with step("publish"):
                mat.publish(home, decl.name, decl.window, self.result.changes,
                            old_panes=_renewed_panes(self.result, decl.window) if self.stats.renewed else [])
        self._published()

    def _kept(self) -> PanedFacts:
        return self.facts


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
    def taking_over(cls, driver: DriverClose) -> SparkClose:
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
                rep.expire(home, name, self.close)
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
            if result.local is not None:
                # rounds run in the driver: the panes they touch, from its rows, as the
                # rounds on Spark observe them (``change_summary``)
                new = result.local.changed.select(mat.pane_of("origin", self.decl.window).unique())
                result.summary = {"new_panes": new.to_series().to_list(),
                                  "old_panes": _renewed_panes(result, self.decl.window)}
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
        super().find_violations(None if self.result.local is not None else self._spark_base(), self.base_rows)

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
                                old_panes=_renewed_panes(self.result, decl.window) if self.stats.renewed else [])
        self._published()

    def _rewritten_by_driver(self, touched: list[int]) -> bool:
        """A close whose rounds ran in the driver, on a home the driver writes
        (``replaces_in_driver``): the touched panes written again by this process in one
        commit with the expiry (``_replace_panes``), as the driver backend publishes. Their
        facts are the rounds' when the rounds held the whole table; when they fetched what
        they looked up, the panes' rows are read (here where the home allows it, else
        collected through Spark: one job) and the changes applied to them. False (nothing
        written) elsewhere, or past the driver's room."""
        local, decl = self.result.local, self.decl
        if local is None or not self.home.access.replaces_in_driver(self.mat_path):
            return False
        pane_of = lambda origin: mat.pane_of(origin, decl.window)  # noqa: E731
        if not local.partial:  # every fact of the table after this close, kept for the next (``_kept``)
            self.after = PanedFacts.of(local.known, pane_of("origin"))
            return _replace_panes(self.home, decl, self.after, set(touched), self.close if self.dropping else None)
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
        return _replace_panes(self.home, decl, facts, set(touched), self.close if self.dropping else None)

    def _kept(self) -> PanedFacts | None:
        return self.after if self.after is not None else super()._kept()

    def _touched_panes(self) -> list[int] | None:
        """The panes the changes touch, where writing them again from the table as read
        beats a MERGE (their rows, estimated as the table's share, within
        ``mat.REPLACE_ROWS``); else None, and None without a change (an expiry alone is a
        DELETE: no write). Known from the rounds' summary, no job."""
        summary, window = self.result.summary or {}, self.decl.window
        if not self.stats.n or self.repaired is not None or self.base_rows is None or "new_panes" not in summary:
            return None
        panes = sorted({*summary["new_panes"], *(summary.get("old_panes") or [])})
        live = 1 if window.landmark else max(1, -(-window.width // window.slide))  # panes its facts spread over
        if self.base_rows * min(1.0, len(panes) / live) + self.stats.n > mat.REPLACE_ROWS:
            return None
        return panes


def file_list_ahead(home: Home, path: str, result: FixpointResult, compiled: Compiled) -> None:
    """After a commit of the view's table, its file list built ahead for the next close,
    unless that close will run from the facts kept in the driver, or read the table here
    (``facts_here``), and publish by this process (``replaces_in_driver``): it then needs no
    file list of Delta's, and building one would take a core from it."""
    here = result.local is not None and home.access.folder(path) is not None
    if not here or compiled.repair is not None or not home.access.replaces_in_driver(path):
        file_list.rebuild_ahead(home.spark, path)


def _live_violations(home: Home, view: str, close: int, last, searched: bool, recorded: bool) -> int:
    """Violations live at ``close``: none when the program has no negative rule, or when
    none was live at the last close and none was recorded at this one (live ones only
    leave as closes pass); else one read of the violations table."""
    if not searched or (not recorded and last is not None and last.violations == 0):
        return 0
    return viol.count_live(home, view, close)


def _replace_panes(home: Home, decl, facts: PanedFacts, touched: set[int], drop_upto: int | None) -> bool:
    """Publish a close run from the resident facts by writing again the panes it touched
    (``facts``: as the close leaves them; expiry in the same commit); False when a MERGE
    writes less (nothing written then)."""
    if not touched and drop_upto is None:
        return False
    return mat.replace_panes(home, decl.name, facts.rows_of(touched), touched, drop_upto)


def _renewed_panes(result, window) -> list[int] | None:
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
