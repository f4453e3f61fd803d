"""A close's fixpoint and violation search run in the driver, between Spark frames.

The facts come in once (from the resident frame of the last close, or the table through
Arrow), the rounds run vectorized (``driver_rules``), and only the change goes back to
Spark, as one Arrow-backed frame.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.engine.process import timing
from reasonlake.engine.reason import budget, driver_joins, ill_typed
from reasonlake.engine.reason import driver_rules as vr
from reasonlake.engine.reason.neighbourhood import Neighbourhood
from reasonlake.engine.reason.program_tables import ProgramTables
from reasonlake.engine.reason.spark_joins import violation_key
from reasonlake.engine.store.arrow_bridge import from_spark, to_spark
from reasonlake.engine.store.schemas import CHANGE_SCHEMA, VIOLATION_SCHEMA


@dataclass
class Step:
    """A fixpoint step run in the driver: what publishing and the violation search need."""

    spark: object
    closed: vr.Closed
    violations_found: int | None = None  # set by step_violations: how many rows it found
    _changes: object = None
    # the materialization was a Spark frame, of which the step fetched the facts it looked up
    # (``run_neighbourhood``): ``known`` is not the window, and is never kept
    fetches: int | None = None

    @property
    def partial(self) -> bool:
        return self.fetches is not None

    @property
    def changes(self):
        """The changed facts as a Spark frame (CHANGE_SCHEMA), shipped to the JVM when first
        asked for: a close that publishes from the driver's rows never asks."""
        if self._changes is None:
            with timing.step("driver: changes to Spark"):
                self._changes = to_spark(self.spark, self.closed.changed, CHANGE_SCHEMA)
        return self._changes

    @property
    def rounds(self) -> int:
        return self.closed.rounds

    @property
    def known(self) -> pl.DataFrame:
        return self.closed.known

    @property
    def changed(self) -> pl.DataFrame:
        return self.closed.changed


def run_step(spark, base, seed, tables: ProgramTables, base_rows: int,
             known: pl.DataFrame | None = None, seed_rows: pl.DataFrame | None = None) -> Step | None:
    """The fixpoint of ``seed`` over ``base`` in the driver; None when it is too big for it
    (the caller runs it on Spark). known: the materialization's facts already in the driver
    (then ``base`` is not read); seed_rows: the seed (s, p, o, origin, rule) already there."""
    room = budget.LOCAL_ROWS - base_rows
    with timing.step("driver: collect"):
        if seed_rows is None:
            seed_rows = from_spark(seed, limit=room)
        if seed_rows is None or seed_rows.height > room:
            return None
        if known is None:
            known = from_spark(base)
        program = vr.vector_program(tables)
    try:
        with timing.step("driver: rounds"):
            # a closure far bigger than its input leaves for Spark once it outgrows the budget
            closed = vr.fixpoint(program, known, seed_rows, max_facts=max(budget.LOCAL_ROWS, 1))
    except vr.TooLarge:
        return None
    return Step(spark, closed)


def run_neighbourhood(spark, source, seed, tables: ProgramTables, room: int,
                      seed_rows: pl.DataFrame | None = None) -> Step | None:
    """The fixpoint of ``seed`` over a table too large for the driver, run in the driver over
    the facts of it the rounds look up (``neighbourhood``; ``source``: where they are read,
    ``SparkFacts`` or ``FilesHere``), within ``room`` facts in all; None when it needs more
    (the caller runs it on Spark). seed_rows: the seed (s, p, o, origin, rule) already in
    the driver."""
    with timing.step("driver: collect"):
        if seed_rows is None:
            seed_rows = from_spark(seed, limit=room)
        if seed_rows is None or seed_rows.height > room:
            return None  # a seed of more rows than the room: the caller's seed frame has them
        program = vr.vector_program(tables)
    known = Neighbourhood(source, room - seed_rows.height)
    try:
        with timing.step("driver: rounds"):
            closed = vr.fixpoint(program, known, seed_rows, max_facts=room)
    except (vr.TooLarge, driver_joins.NeedsWholeWindow):
        return None
    return Step(spark, closed, fetches=known.fetches)


def step_violations(spark, step: Step, tables: ProgramTables, terms=None):
    """find_violations for a step run in the driver: premises among the changes, the others
    from every fact the step saw (a fact renewed twice is there at each origin, and the
    violation rows keep the latest, as on Spark); terms: the dictionary, when the changed
    facts' literals are checked (dt-not-type)."""
    delta = step.changed.select("s", "p", "o", "origin")
    closed = step.closed
    found = []
    if not delta.is_empty():
        def search():
            return vr.violations(tables.negative, delta, closed.full, closed.probe)
        found = closed.settled(search) if closed.settled is not None else search()
    if terms is not None:
        found += ill_typed.driver_violations(spark, terms, delta)
    step.violations_found = len(found)
    return violation_frame(spark, found, keep_origins=False)


class _NoneFound:
    """The empty violations frame, made on its first use (a close that found none and records
    none never uses it)."""
    def __init__(self, make):
        self._make, self._frame = make, None

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_make", "_frame"):
            raise AttributeError(name)
        if self._frame is None:
            self._frame = self._make()
        return getattr(self._frame, name)


def violation_frame(spark, found: list[tuple], keep_origins: bool):
    """Violation rows as ``spark_joins.violations`` returns them (key column included)."""
    if not found:  # the usual case: nothing to key, nothing to keep; made when first used,
        # so that a close the driver runs without Spark (decision 0071) does not start it for none
        return _NoneFound(lambda: spark.createDataFrame([], "key STRING, " + VIOLATION_SCHEMA))
    rows = [(rule, bindings, [tuple(t) for t in triples], origin) for rule, bindings, triples, origin in found]
    out = spark.createDataFrame(rows, VIOLATION_SCHEMA)
    return out.select(violation_key(keep_origins).alias("key"), "*").localCheckpoint()
