"""A view's content at a close, for SPARQL queries (``reasonlake.query``): subject,
predicate, object in N-Triples text, each triple once, anonymous terms left out as
``export`` leaves them out, in the dialect of the backend that answers (decision 0045).

Where ``export`` reads in this process (``driver_reads.view_rows``: a local home, tables
within ``REASONLAKE_DRIVER_READ_MB``) the triples are a Polars frame and the driver
answers; elsewhere (a view too large for the driver, a home on object storage, a Spark
Connect server that cannot see the files) they stay a Spark frame, decoded on the
executors, and Spark answers (``spark_frames``): the view is never collected. The rows are
``view_decoding``'s either way.

A query with event operators (EP-SPARQL, decision 0046) reads the view's *occurrences*
instead: each stream item of the window at the close, with its time as its interval, once
per arrival (an item that came twice is two occurrences), where the view holds its triple
and no repair removed it. Spark reads them (the events table, the view and its tombstones,
joined on ids); the driver's dialect takes them as Arrow.

A process keeps the triples it last read of each view (``ProcessCache.query_views``), by
the published version whose content they are and the close: a version's content never
changes, so a warm process (the server, the runner, a notebook) answers the next query at
that close without reading the view again.
"""
from __future__ import annotations

import polars as pl

from reasonlake.engine.reads import read
from reasonlake.engine.reads.decoded_panes import DecodedPanes
from reasonlake.engine.reason import resident
from reasonlake.engine.steps.admit import in_panes
from reasonlake.engine.store import dictionary, driver_reads, repair_tables, table_log
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.arrow_bridge import to_spark
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.session import settings_for_a_while
from reasonlake.query import bound as query_bound
from reasonlake.query.solutions import END, START

COLUMNS = ["subject", "predicate", "object"]
_TIMES = {"start_ms": START, "end_ms": END}  # an occurrence's times, named in SQL both dialects read, renamed after
# Spark's settings while it answers a query: the session's (``session._EMBEDDED_CONF``) merge
# a shuffle's partitions up to a target size, which left a join of the IMaRS window's
# millions of matches on one task of the two cores (decision 0055)
QUERY_SETTINGS = {"spark.sql.adaptive.coalescePartitions.parallelismFirst": "true"}


class ViewTriples:
    """The triples a query reads, and the dialect that answers over them."""

    def __init__(self, frame, frames=None, occurrences=None, decoded=None, rules=None):
        self.frame = frame
        # decoded from the facts kept here (``decoded_panes``): which state of them, how it came
        # from the one before, the rows of each pane (ids and text) and the terms they name (a
        # registered query carries its solutions across the change: ``query.incremental``)
        self.generation = self.change = self.panes = self.terms = None
        if decoded is not None:
            self.generation, self.change, self.panes, self.terms = \
                decoded.generation, decoded.change, decoded.rows(), decoded.terms
        self.frames = frames  # None: the driver's (Polars)
        self._count = None  # Spark's count, asked once
        self._occurrences = occurrences  # a function giving them as a Spark frame; None: none known
        self._read_occurrences = None
        self._rules = rules  # a function giving the view's compiled rules (``events``); None: none
        self._events = None

    @property
    def backend(self) -> str:
        return "driver" if self.frames is None else self.frames.name

    @property
    def height(self) -> int:
        if self.frames is None:
            return self.frame.height
        if self._count is None:
            self._count = self.frame.count()
        return self._count

    def answer(self, text: str, bound=None):
        """``text`` answered over these triples, within ``bound`` (``query.bound``; None: the
        settings)."""
        # imported when called: tests replace this name
        from reasonlake.query import run


        within = bound or query_bound.configured()

        def answered():  # read as a set (``_read``)
            return run(self.frame, text, self.frames, distinct=True, bound=within,
                       occurrences=(lambda patterns: self.events(patterns, within))
                       if self._occurrences is not None else None)

        if self.frames is None:
            return answered()
        # a query's shuffles are merged into no fewer partitions than the session has cores,
        # where a close's small ones are merged up to the target size (decision 0066)
        with settings_for_a_while(self.frames.spark, QUERY_SETTINGS):
            return answered()

    def occurrences(self):
        """The window's timed occurrences (subject, predicate, object, START, END), read once."""
        if self._read_occurrences is None:
            self._read_occurrences = self._occurrences(self.frames is None)
        return self._read_occurrences

    def events(self, patterns: list[tuple], bound):
        """What an EP-SPARQL query's ``patterns`` match: the occurrences, and the facts the
        view's rules derive from them over each minimal interval (``derived_events``) where
        the rules can derive what a pattern reads; derived once, on the driver (the window's
        items are collected there, as a MATCH collects them: no more rows than the query's
        ``bound`` allows, so a window too large for the driver stops the query, not the process)."""
        # imported when called: the rules' engine loads only for a query whose patterns it may answer
        from reasonlake.engine.reason import derived_events

        compiled = self._rules() if self._rules is not None else None
        if compiled is None or not derived_events.can_match(compiled.tables, patterns):
            return self.occurrences()
        if self._events is None:
            found = self.occurrences()
            items = found if isinstance(found, pl.DataFrame) else pl.from_arrow(found.limit(bound.rows + 1).toArrow())
            what = "the window's items the ontology derives events from"
            if items.height > bound.rows:  # from Spark, one more row than the bound says it is passed
                raise bound.rows_past(what, items.height if items is found else f"more than {bound.rows:,}")
            events = derived_events.with_intervals(items, compiled.tables, compiled.terms)
            bound.check(f"{what}, with those it derives", events.height)
            if self.frames is not None:

                events = to_spark(self.frames.spark, events, found.schema)
            self._events = events
        return self._events


def triples(home: Home, view: str, close: int | None = None, version: int | None = None) -> tuple[ViewTriples, int]:
    """The view's triples at a close or published version, and the close read."""
    record, at, latest = read.picked(home, view, close, version)
    return _kept(home, view, record.version, at,
                 lambda: _read(home, view, read.version_read(home, view, record, latest), at,
                               record.events_seq, record.version)), at


def triples_at(home: Home, view: str, version: int, at: int, events_seq: int | None = None) -> ViewTriples:
    """The view's triples live at close ``at`` in its table's ``version``, whether or not a
    close record names that version yet (a close answers its registered queries before it
    records itself); ``events_seq``: the last ingest the close read (None: any)."""
    return _kept(home, view, version, at, lambda: _read(home, view, version, at, events_seq, version))


def _kept(home: Home, view: str, version: int, at: int, read_them) -> ViewTriples:
    """The triples of ``version`` at ``at`` as this process last read them, else read now
    (and kept in place of the view's earlier ones). The view's definition is part of the
    key (a view made again under its name starts its versions again), and so is the driver's
    budget, which decides which backend reads."""
    key = (home.view(view).fingerprint(), version, at, driver_reads.limit_bytes())
    path = home.mat_path(view)
    found = home.cache.query_views.get(path)
    if found is not None and found[0] == key:
        return found[1]
    triples = read_them()
    home.cache.query_views[path] = (key, triples)
    return triples


def _read(home: Home, view: str, version: int | None, at: int, events_seq: int | None,
          published: int) -> ViewTriples:
    """Read at ``version`` (None: the latest), the view's content published as ``published``."""

    def timed(in_driver: bool):
        if in_driver:  # read here where the home allows it, as the view was; else by Spark, then taken here
            return occurrences_in_driver(home, view, version, at, events_seq)
        # every event pattern reads them: read once, on the executors
        return occurrences(home, view, version, at, events_seq).localCheckpoint(eager=False)

    def rules():
        # imported when called: the rule compiler (0.2 s) loads only for an event query that derives
        from reasonlake.engine.steps.compiled import compile_view

        return compile_view(home, home.view(view))

    panes = _decoded_here(home, view, published, at)
    if panes is not None:
        frame, decoded = panes
        return ViewTriples(frame, occurrences=timed, decoded=decoded, rules=rules)
    tables, render = driver_reads.view_read(home, view, version, at, decoding.term_columns())
    found = driver_reads.here(home.spark, tables, render)
    if found is not None:  # the driver's dialect answers the queries
        frame = pl.from_arrow(found)
        return ViewTriples(frame.select(pl.col(c).cast(pl.String) for c in COLUMNS).unique(), occurrences=timed,
                           rules=rules)
    decoded = driver_reads.frame(home.spark, tables, render)  # the same read, planned on Spark
    # read by every triple pattern of every query at this close: decoded once, on the executors,
    # and spread over as many partitions as a shuffle makes (the set's own shuffle, its
    # partitions merged by size, left 3.1M facts in one: every pattern's scan on one core)
    spread = int(home.spark.conf.get("spark.sql.shuffle.partitions"))
    # imported when called: the Spark dialect loads only where Spark reads the view
    from reasonlake.query.dialects.spark_frames import SparkFrames

    return ViewTriples(decoded.distinct().repartition(spread).localCheckpoint(eager=False), SparkFrames(home.spark),
                       timed, rules=rules)


def _decoded_here(home: Home, view: str, version: int, at: int):
    """The view's triples at ``at`` decoded from the facts this process keeps of the
    table at ``version`` (``decoded_panes``: only the panes new since the last call
    decoded), with the panes that decoded them; None where it keeps none of that version,
    or the dictionary is not read here."""
    facts = resident.peek(home, view, home.view(view).fingerprint(), version)
    # the text is held here beside the facts: within the driver's read budget, as a read
    # of the table is (its ids, 24 bytes a fact, for the table's Parquet)
    if facts is None or facts.height * 24 > driver_reads.limit_bytes():
        return None
    panes = home.cache.decoded_panes.setdefault(home.mat_path(view), DecodedPanes())
    frame = panes.triples(facts, at, lambda ids: dictionary.terms_read_here(home.spark, home.path("terms"), ids))
    return None if frame is None else (frame, panes)


def occurrences_in_driver(home: Home, view: str, version: int | None, at: int,
                          events_seq: int | None) -> pl.DataFrame:
    """``occurrences`` as a Polars frame: read in this process (delta-rs and DataFusion)
    where the home allows it, else by Spark and taken here (``driver_reads.rows``)."""
    tables, render = _occurrences(home, view, version, at, events_seq)
    frame = pl.from_arrow(driver_reads.rows(home.spark, tables, render))
    return frame.select(*(pl.col(c).cast(pl.String) for c in COLUMNS),
                        *(pl.col(t).cast(pl.Int64) for t in ("start_ms", "end_ms"))).rename(_TIMES)


def occurrences(home: Home, view: str, version: int | None, at: int, events_seq: int | None):
    """The stream items of the window at ``at`` that the view holds (its table's
    ``version``), one row per arrival: subject, predicate, object (N-Triples), START and
    END (the item's time), as a Spark frame (``driver_reads.frame``: never collected)."""
    tables, render = _occurrences(home, view, version, at, events_seq)
    return driver_reads.frame(home.spark, tables, render).withColumnsRenamed(_TIMES)


def _occurrences(home: Home, view: str, version: int | None, at: int, events_seq: int | None):
    """The tables ``occurrences`` reads and its SQL, one description rendered for each
    dialect (``view_decoding``): the window's items of the stream joined on ids with the
    view's facts and, where repairs removed some, the tombstones (a loser's arrivals are
    not occurrences), their ids decoded through the dictionary."""
    decl = home.view(view)
    opens = decl.window.opens(at)
    tables = {"events": (home.path("events"), None), "mat": (home.mat_path(view), version),
              "terms": (home.path("terms"), None)}
    removed = ""
    if table_log.is_delta(home.spark, repair_tables.removed_path(home, view)):
        tables["removed"] = (repair_tables.removed_path(home, view), None)
        removed = ("NOT EXISTS (SELECT 1 FROM {removed} r WHERE r.s = e.s_id AND r.p = e.p_id "
                   f"AND r.o = e.o_id AND r.ts = e.ts AND r.close <= {int(at)})")
    joins = decoding.term_joins("{terms}", "e.{}_id")
    items = (f"(SELECT * FROM {{events}} WHERE {in_panes(decl.stream, _upto(events_seq), opens, at)}) e "
             f"JOIN (SELECT DISTINCT s, p, o FROM {{mat}} WHERE origin > {int(opens)}) m "
             "ON e.s_id = m.s AND e.p_id = m.p AND e.o_id = m.o")

    def render(dialect: decoding.Dialect) -> str:
        shown, hidden = decoding.hidden_test(dialect)
        where = " AND ".join(filter(None, (removed, hidden)))
        return (f"SELECT s.term AS subject, p.term AS predicate, o.term AS object, e.ts AS start_ms, "
                f"e.ts AS end_ms{shown} FROM {items} {joins}" + (f" WHERE {where}" if where else ""))

    return tables, render


def _upto(events_seq: int | None) -> int:
    """The last ingest a close read; None (a close not recorded yet): every ingest so far."""
    return events_seq if events_seq is not None else 2**62
