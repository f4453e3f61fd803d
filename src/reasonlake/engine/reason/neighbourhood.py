"""The part of a window too large for the driver that a close's change can reach, fetched
from Spark into the driver as the rounds ask for it.

A close on Spark ran each semi-naive round as Spark jobs (eight a round at 10k items, each
costing 0.1-0.3 s whatever its size), though its change is small: every rule joins a fact of
Δ with facts sharing one of its terms. Here the rounds run in the driver (``driver_rules``),
and the materialization (a frame Spark holds) is only read for the facts they look up: by
subject, by object, or by predicate, the terms given. A look-up of terms not asked before
is one scan of the frame, keeping the facts whose subject or object is one of them (both
columns at once: a term asked by subject is soon asked by object, a rule's other premise);
a look-up of terms already asked costs no job. A close of a view whose rules join on Δ's own
terms (rdfs, most of rdfs-plus) fetches once; a chain of premises (prp-spo2, prp-key) fetches
once per link it reaches that Δ's terms did not.

The facts fetched are one row per fact, as the frame holds them. Past ``room`` rows the
step gives up (``driver_rules.TooLarge``) and the close runs its rounds on Spark.

Where the facts come from is the source's: ``SparkFacts`` semi-joins the frame on Spark
(a home only Spark reads: object storage, a cluster), ``FilesHere`` streams the table's
files through this process (a home whose files it reads, ``facts_here``: no Spark job).
"""
from __future__ import annotations

import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.process import timing
from reasonlake.engine.store.arrow_bridge import from_spark, to_spark
from reasonlake.engine.reason.driver_rules import FACT_SCHEMA, TooLarge, empty, touching
from reasonlake.engine.store.dictionary import driver_term_id
from reasonlake.engine.store.facts_here import FactsHere
from reasonlake.engine.store.schemas import FACT_COLUMNS, KEY
from reasonlake.vocab import TYPE

TYPE_ID = driver_term_id(TYPE)


class SparkFacts:
    """The facts of a Spark frame (s, p, o, origin, rule), fetched by semi-joins on Spark."""

    def __init__(self, spark, base: DataFrame, rows: int | None = None):
        self.spark = spark
        self.base = base.select(*FACT_COLUMNS)
        self.rows = rows  # the frame's rows, where counted

    def touching(self, terms: pl.Series, predicates: pl.Series, limit: int) -> pl.DataFrame | None:
        """The facts whose subject or object is one of ``terms`` or whose predicate is one of
        ``predicates`` (one scan, one job); None past ``limit`` rows."""
        parts = []
        if not terms.is_empty():
            wanted = F.broadcast(to_spark(self.spark, pl.DataFrame({"v": terms}), "v BIGINT"))
            # two semi-joins, each on one column's equality (a hash join each); one join on
            # "s = v OR o = v" would compare every pair
            parts += [self.base.join(wanted, F.col(c) == F.col("v"), "left_semi") for c in ("s", "o")]
        if not predicates.is_empty():
            wanted = F.broadcast(to_spark(self.spark, pl.DataFrame({"v": predicates}), "v BIGINT"))
            parts.append(self.base.join(wanted, F.col("p") == F.col("v"), "left_semi"))
        rows = parts[0]
        for part in parts[1:]:
            rows = rows.unionByName(part)
        # a fact comes at most once a part
        return from_spark(rows, limit=limit, most=None if self.rows is None else self.rows * len(parts))


class FilesHere:
    """The facts of the view's table read by this process (``facts_here``): each fetch one
    streamed scan of the live facts, filtered a chunk at a time."""

    def __init__(self, facts: FactsHere):
        self.facts = facts

    def touching(self, terms: pl.Series, predicates: pl.Series, limit: int) -> pl.DataFrame | None:
        among_terms, among_predicates = terms.implode(), predicates.implode()
        found, rows = [], 0
        for chunk in self.facts.chunks():
            kept = chunk.filter(pl.col("s").is_in(among_terms) | pl.col("o").is_in(among_terms)
                                | pl.col("p").is_in(among_predicates))
            found.append(kept)
            rows += kept.height
            if rows > limit:
                return None
        return pl.concat([empty(), *found])


class Neighbourhood:
    """Facts of a source (``SparkFacts``, ``FilesHere``; s, p, o, origin, rule, one row per
    fact) fetched on demand."""

    partial = True  # ``driver_rules.fixpoint``: not every fact is at hand

    def __init__(self, source: SparkFacts | FilesHere, room: int):
        self.source = source
        self.room = room
        self.facts = empty()
        self.terms = _values([])  # every subject and object fetched so far
        self.predicates = _values([])  # every predicate fetched whole
        self.fetches = 0
        # in ``settled``: look-ups of what is not fetched yet are noted here, and answered
        # by one fetch for all of them once the plan is built
        self.deferring = False
        self.pending_terms: list[pl.Series] = []
        self.pending_predicates: list[pl.Series] = []

    @property
    def height(self) -> int:
        return self.facts.height

    def frame(self) -> pl.DataFrame:
        """The facts fetched so far."""
        return self.facts

    def touching(self, column: str, values: pl.Series) -> pl.LazyFrame:
        """The facts whose ``column`` (s, o or p) holds one of ``values``: every such fact of
        the frame, those not fetched yet fetched first (in ``settled``: noted, and the answer
        is what is at hand, which ``settled`` asks again once they are fetched)."""
        if column == "p":
            self.pending_predicates.append(values)
        else:
            self.pending_terms.append(values)
        if not self.deferring:
            self._fetch_pending()
        return touching(self.facts.lazy(), column, values)

    def want(self, facts: pl.DataFrame) -> None:
        """Note the terms ``facts`` (a round's candidates) will be looked up by: their
        subjects, and their objects but classes (``rdf:type``'s, joined with the ontology,
        never with the window) and literals (joined only by a few rules, looked up then)."""
        self.pending_terms.append(facts.get_column("s"))
        self.pending_terms.append(facts.filter((pl.col("p") != TYPE_ID) & (pl.col("o") >= 0)).get_column("o"))

    def settled(self, build):
        """``build()``'s answer once every look-up it makes is answered in full: built, the
        terms it looked up and did not have fetched (one Spark job), built again, until
        nothing is missing. A chain of premises takes one pass per link Δ's terms do not reach."""
        self.deferring = True
        try:
            while True:
                out = build()
                if not self._fetch_pending():
                    return out
        finally:
            self.deferring = False

    def _fetch_pending(self) -> bool:
        """Fetch the facts of the terms and predicates noted and not fetched yet, in one
        scan of the source; whether there were any."""
        terms = _missing(self.pending_terms, self.terms)
        predicates = _missing(self.pending_predicates, self.predicates)
        self.pending_terms, self.pending_predicates = [], []
        if terms.is_empty() and predicates.is_empty():
            return False
        with timing.step("driver: fetch neighbours"):
            fetched = self.source.touching(terms, predicates, self.room - self.facts.height)
        self.fetches += 1
        self.terms = pl.concat([self.terms, terms])
        self.predicates = pl.concat([self.predicates, predicates])
        if fetched is None:
            raise TooLarge(self.room)
        # a fact found by its subject and by its object comes twice, and may have come before
        self.facts = pl.concat([self.facts, fetched.cast(FACT_SCHEMA)]).unique(KEY, keep="first", maintain_order=True)
        if self.facts.height > self.room:
            raise TooLarge(self.facts.height)
        return True


def _values(values) -> pl.Series:
    return pl.Series("v", values, pl.Int64)


def _missing(asked: list[pl.Series], fetched: pl.Series) -> pl.Series:
    if not asked:
        return _values([])
    wanted = pl.concat([a.cast(pl.Int64).rename("v") for a in asked]).drop_nulls().unique()
    return wanted.filter(~wanted.is_in(fetched.implode())) if not fetched.is_empty() else wanted
