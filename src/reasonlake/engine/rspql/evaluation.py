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
