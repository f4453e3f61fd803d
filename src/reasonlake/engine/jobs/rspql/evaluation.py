"""One RSP-QL query answered at one evaluation time (decision 0074).

- *Evaluation times* are the closes the query's windows share (each window's report policy
  is window close, Definition 5.12 ANDed): from the first close at which one of its windows
  holds an item (before that every window is empty, and a stream from the past would
  otherwise stream out years of answers over nothing) up to the latest close every window
  has reached.
- *The dataset at t* (Definition 5.4): each named window is the named graph of its IRI,
  holding what its view holds at t (the view's latest published close at or before t,
  minus what expired since: a view skips a close where nothing happens); ``FROM GRAPH``
  files are the default graph, ``FROM NAMED GRAPH`` files named graphs.
- *The dialect* is the views': the driver's where every window was read here, else Spark's,
  with the driver's frames handed to it.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from rdflib import Graph

from reasonlake.declare.rsep import events_of
from reasonlake.declare.rspql_file import RspqlDecl
from reasonlake.engine.jobs.rspql import matching
from reasonlake.engine.jobs.rspql.consumption import Consumption
from reasonlake.engine.reads import query_read
from reasonlake.engine.reason import derived_events
from reasonlake.engine.steps.compiled import compile_view
from reasonlake.engine.store import state
from reasonlake.engine.store.arrow_bridge import to_spark
from reasonlake.engine.store.home import Home
from reasonlake.plan.windows import Window
from reasonlake.query import Answer, run
from reasonlake.query.solutions import START

COLUMNS = ("subject", "predicate", "object")
_SCHEMA = ", ".join(f"{c} STRING" for c in COLUMNS)


def empty_graph() -> pl.DataFrame:
    return pl.DataFrame(schema={c: pl.String for c in COLUMNS})


def shared_closes(windows: list[Window], begin: int, upto: int) -> list[int]:
    """The times in [begin, upto] where every window closes."""
    widest = max(windows, key=lambda w: w.slide)
    t = widest.close_at_or_after(max(begin, widest.first_close))
    found = []
    while t <= upto:
        if all(w.is_close(t) for w in windows):
            found.append(t)
        t += widest.slide
    return found


def previous_shared_close(windows: list[Window], t: int) -> int | None:
    """The latest time before ``t`` where every window closes (None: none)."""
    widest = max(windows, key=lambda w: w.slide)
    before = t - widest.slide
    while before >= widest.first_close:
        if all(w.is_close(before) for w in windows):
            return before
        before -= widest.slide
    return None


def reports(home: Home, decl: RspqlDecl, t: int, before: int | None) -> bool:
    """Whether the query reports at the shared close ``t``: every window's strategy holds
    there (Definition 5.12, the strategies ANDed; section 5.8's strategies read at the closes
    the windows share): on close, always; non empty, the window holds a triple; on change,
    its content differs from the one at the shared close ``before`` (None: from nothing);
    every, ``t`` is its start plus a multiple of the period."""
    views = dict(decl.views)
    for window in decl.registration.windows:
        if window.report == "every" and (t - (window.start_ms or 0)) % window.period_ms:
            return False
        if window.report not in ("non empty", "on change"):
            continue
        now = window_triples(home, views[window.name], t)
        if window.report == "non empty" and (now is None or now.height == 0):
            return False
        if window.report == "on change":
            earlier = None if before is None else window_triples(home, views[window.name], before)
            if _same(now, earlier):
                return False
    return True


def _same(a: query_read.ViewTriples | None, b: query_read.ViewTriples | None) -> bool:
    """Whether two window contents hold the same triples (None: nothing)."""
    if a is None or b is None or a.height == 0 or b.height == 0:
        return (a is None or a.height == 0) and (b is None or b.height == 0)
    if a.frames is None and b.frames is None:
        return a.frame.height == b.frame.height and a.frame.join(b.frame, on=list(COLUMNS), how="anti").height == 0
    left, right = (x.frame if x.frames is not None else None for x in (a, b))
    if left is None or right is None:  # one in the driver, one in Spark: compared in the driver
        left, right = (pl.from_arrow(x.frame.toArrow()) if x.frames is not None else x.frame for x in (a, b))
        return left.height == right.height and left.join(right, on=list(COLUMNS), how="anti").height == 0
    return left.exceptAll(right).isEmpty() and right.exceptAll(left).isEmpty()


@dataclass(frozen=True)
class StaticGraphs:
    default: pl.DataFrame
    named: dict[str, pl.DataFrame]


def static_graphs(decl: RspqlDecl) -> StaticGraphs:
    """The query's static graphs as frames, parsed from the files read at registration."""
    default, named = [], {}
    for graph in decl.graphs:
        parsed = Graph().parse(data=graph.source.text, format=graph.source.format)
        frame = pl.DataFrame([(s.n3(), p.n3(), o.n3()) for s, p, o in parsed],
                             schema={c: pl.String for c in COLUMNS}, orient="row")
        if graph.named:
            named[graph.iri] = pl.concat([named.get(graph.iri, empty_graph()), frame])
        else:
            default.append(frame)
    return StaticGraphs(pl.concat([empty_graph(), *default]), named)


def window_triples(home: Home, view: str, t: int) -> query_read.ViewTriples | None:
    """What the view holds at ``t`` (None: nothing, before its first published close)."""
    earlier = [r for r in state.readable(home, view) if r.close <= t]
    if not earlier:
        return None
    record = earlier[-1]
    return query_read.triples_at(home, view, record.version, t, record.events_seq)


def answer_at(home: Home, decl: RspqlDecl, t: int, static: StaticGraphs, consumed: Consumption | None = None
              ) -> Answer:
    """The query's answer over its dataset at ``t``; ``consumed``: what its MATCH clauses
    used at earlier times (None: nothing)."""
    named: dict[str, object] = dict(static.named)
    in_default = [static.default]  # FROM GRAPH files and C-SPARQL's unnamed windows (FROM STREAM)
    unnamed = {w.name for w in decl.registration.windows if not w.named}
    frames = None
    contents = {iri: window_triples(home, view, t) for iri, view in decl.views}
    matches = _matches(home, decl, t, contents, consumed or Consumption(home, decl, None))
    for iri, view in decl.views:
        triples = contents[iri]
        content = empty_graph() if triples is None else triples.frame
        if iri in unnamed:
            in_default.append(content)
        else:
            named[iri] = content
        if triples is not None and triples.frames is not None:
            frames = triples.frames
    if frames is not None:  # a window Spark holds: the driver's frames go to Spark

        def spark(frame):
            return to_spark(frames.spark, frame, _SCHEMA) if isinstance(frame, pl.DataFrame) else frame

        named = {iri: spark(frame) for iri, frame in named.items()}
        in_default = [spark(frame) for frame in in_default]
        default = in_default[0]
        for more in in_default[1:]:
            default = default.unionByName(more)
    else:
        default = pl.concat(in_default)
    return run(default, decl.registration.sparql, frames, named=named, matches=matches)


def _matches(home: Home, decl: RspqlDecl, t: int, contents: dict, consumed: Consumption) -> dict[str, pl.DataFrame]:
    """Each MATCH's solutions at ``t`` by its placeholder IRI, over the items its windows
    hold that its consumption policy leaves it (``matching``); what each used is noted."""
    found = {}
    views = dict(decl.views)
    ids: dict[tuple[str, int], int] = {}
    read: dict[str, pl.DataFrame] = {}  # each window's items read once (a Spark window: one collect)
    occurring: dict[tuple, pl.DataFrame] = {}  # and closed once per set of items left available
    prefixes = dict(decl.registration.prefixes)
    for k, m in enumerate(decl.registration.matches):
        windows = {}
        for iri in dict.fromkeys(e.window for e in events_of(m.pattern)):
            view = home.view(views[iri])
            if iri not in read:
                read[iri] = window_items(contents[iri], ids, view.stream)
            available = consumed.available(k, view.stream, view.window, read[iri], t)
            windows[iri] = matching.WindowItems(_occurring(home, view, m, iri, available, prefixes, occurring))
        matched = matching.match(m, windows, prefixes)
        named_items = {v: key for key, v in ids.items()}
        consumed.note(k, t, sorted(named_items[i] for i in matched.used))
        found[m.placeholder] = matched.solutions
    return found


def _occurring(home: Home, view, m, iri: str, available: pl.DataFrame, prefixes: dict, cache: dict) -> pl.DataFrame:
    """The events MATCH ``m`` reads in window ``iri``: the available items, with the facts
    they derive when one of its patterns there can match a derived fact (decision 0074,
    "Derived events"); closed once per window and set of items."""
    compiled = compile_view(home, view)
    read_by = [triple for e in events_of(m.pattern) if e.window == iri for triple in matching.triples(e, prefixes)]
    if not derived_events.can_match(compiled.tables, read_by):
        return available
    key = (iri, tuple(available.get_column("$item").unique().sort()))
    if key not in cache:
        cache[key] = derived_events.with_derived(available, compiled.tables, compiled.terms)
    return cache[key]


def window_items(triples: query_read.ViewTriples | None, ids: dict[tuple[str, int], int], stream: str
                 ) -> pl.DataFrame:
    """A window's items at the close (its occurrences, read on the driver or collected from
    Spark), each statement with its time and its item's id in ``ids`` (by stream and time)."""
    schema = {"subject": pl.String, "predicate": pl.String, "object": pl.String, "$ts": pl.Int64, "$item": pl.Int64}
    if triples is None:  # no count asked first: on Spark it is one more job
        return pl.DataFrame(schema=schema)
    found = triples.occurrences()
    if not isinstance(found, pl.DataFrame):
        found = pl.from_arrow(found.toArrow())
    frame = found.select(*(pl.col(c).cast(pl.String) for c in COLUMNS), pl.col(START).cast(pl.Int64).alias("$ts"))
    for ts in frame.get_column("$ts").unique().sort().to_list():
        ids.setdefault((stream, ts), len(ids))
    keys = pl.DataFrame({"$ts": [ts for (s, ts) in ids if s == stream], "$item": [i for (s, _), i in ids.items()
                                                                                 if s == stream]},
                        schema={"$ts": pl.Int64, "$item": pl.Int64})
    return frame.join(keys, on="$ts", how="inner").unique()


def no_solutions(decl: RspqlDecl) -> pl.DataFrame:
    """The answer before the first evaluation time (Definitions 5.10, 5.11): no solution."""
    if decl.form == "CONSTRUCT":
        return pl.DataFrame()
    return pl.DataFrame(schema={v: pl.String for v in decl.variables()})
