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

from reasonlake.declare.rspql_file import RspqlDecl
from reasonlake.engine import query_read
from reasonlake.engine.store import state
from reasonlake.engine.store.home import Home
from reasonlake.plan.windows import Window
from reasonlake.query import Answer, run

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
    from rdflib import Graph

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


def answer_at(home: Home, decl: RspqlDecl, t: int, static: StaticGraphs) -> Answer:
    """The query's answer over its dataset at ``t``."""
    named: dict[str, object] = dict(static.named)
    in_default = [static.default]  # FROM GRAPH files and C-SPARQL's unnamed windows (FROM STREAM)
    unnamed = {w.name for w in decl.registration.windows if not w.named}
    frames = None
    for iri, view in decl.views:
        triples = window_triples(home, view, t)
        content = empty_graph() if triples is None else triples.frame
        if iri in unnamed:
            in_default.append(content)
        else:
            named[iri] = content
        if triples is not None and triples.frames is not None:
            frames = triples.frames
    if frames is not None:  # a window Spark holds: the driver's frames go to Spark
        from reasonlake.engine.arrow_bridge import to_spark

        def spark(frame):
            return to_spark(frames.spark, frame, _SCHEMA) if isinstance(frame, pl.DataFrame) else frame

        named = {iri: spark(frame) for iri, frame in named.items()}
        in_default = [spark(frame) for frame in in_default]
        default = in_default[0]
        for more in in_default[1:]:
            default = default.unionByName(more)
    else:
        default = pl.concat(in_default)
    return run(default, decl.registration.sparql, frames, named=named)


def no_solutions(decl: RspqlDecl) -> pl.DataFrame:
    """The answer before the first evaluation time (Definitions 5.10, 5.11): no solution."""
    if decl.form == "CONSTRUCT":
        return pl.DataFrame()
    return pl.DataFrame(schema={v: pl.String for v in decl.variables()})
