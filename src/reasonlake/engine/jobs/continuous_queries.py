"""A view's registered queries answered at a close it has just published (decision 0036).

After the publish and before the close records itself, each query of the view
(``declare.queries``) is answered over the view's triples at the published version by the
one-off evaluator (``reasonlake.query``), and what its stream operator streams out under its
report policy (``query.streams``) replaces its table's rows from that close on
(``store.query_tables``). Written before the record, so that a crash between the two
leaves the close unrecorded and redone, and the redo replaces the rows; after the record, a
crash would leave a recorded close without its rows for ever.

Where the view's triples were decoded here pane by pane (``decoded_panes``) and a query is
monotone in them (a basic graph pattern under FILTERs: ``query.incremental``), the process
keeps the query's solutions too, and the next close carries them across its change (the
panes it removed and added) instead of answering over the whole window
(``ProcessCache.query_solutions``, keyed by the triples' generation).

IStream and DStream need the answer at the previous close the query reported at. The
process keeps the last answer it computed per query (``ProcessCache.query_answers``), so a
slide through many closes answers each query once a close; a new process answers it again
at the previous close's version.

A query past its bound at a close (``query.bound``, decision 0070) writes no rows for that
close, and says so in one line on stderr: the view's close and its other queries go on, as
does the runner. A view's close is right whatever a reader of it asks, and a runner lives
for hours; the next close answers the query again, within the bound or not.
"""
from __future__ import annotations

import sys

import polars as pl
from rdflib import BNode, Variable

from reasonlake.declare.queries import QueryDecl
from reasonlake.declare.view import ViewDecl
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.reads import query_read
from reasonlake.engine.store import query_tables, state
from reasonlake.engine.store.dictionary import driver_term_id
from reasonlake.engine.store.home import Home
from reasonlake.plan.durations import format_time
from reasonlake.query import incremental, streams
from reasonlake.query.bound import QueryBoundError
from reasonlake.query.streams import ReportPolicy


def after_publish(home: Home, decl: ViewDecl, close: int, version: int, earlier: list[state.Published]) -> None:
    """Answer every registered query at ``close`` (the view's table at ``version``) and write
    what it streams out; ``earlier``: the view's processed closes before ``close``."""
    if not decl.queries:
        return
    with step("registered queries"):
        triples = query_read.triples_at(home, decl.name, version, close)
        for query in decl.queries:
            try:
                current = _carried(home, decl.name, query, triples)
                previous = _previous(home, decl, query, earlier)
            except QueryBoundError as exc:
                _past_bound(home, decl, query, close, version, exc)
                continue
            reported = streams.reports(query.report, previous, current, triples.height)
            out = streams.rows(query.stream, previous, current) if reported else current.head(0)
            rows = query_tables.frame(list(query.variables), out, close, version)
            query_tables.replace_from(home, decl.name, query, rows, close)
            _keep(home, decl.name, query, close, version, current, triples.height)
    faults.reached("queries")


def _past_bound(home: Home, decl: ViewDecl, query: QueryDecl, close: int, version: int,
                exc: QueryBoundError) -> None:
    """No rows for ``close`` (none left of an earlier try either), nothing kept to carry or
    compare with, and the line that says why."""
    empty = pl.DataFrame(schema={v: pl.String for v in query.variables})
    query_tables.replace_from(home, decl.name, query, query_tables.frame(list(query.variables), empty, close, version),
                              close)
    home.cache.query_answers.pop((home.root, decl.name, query.name), None)
    home.cache.query_solutions.pop((home.root, decl.name, query.name), None)
    print(f"reasonlake: warning: view {decl.name}: query {query.name} at close {format_time(close)}: {exc.code}: "
          f"{exc}; no rows written for this close (the view's close and its other queries went on)", file=sys.stderr)


def _answer(query: QueryDecl, triples: query_read.ViewTriples) -> pl.DataFrame:
    return triples.answer(query.text).frame


def _carried(home: Home, view: str, query: QueryDecl, triples: query_read.ViewTriples) -> pl.DataFrame:
    """The answer over ``triples``, from the solutions kept at the generation they changed
    from where the query allows it (``incremental``); else answered over them all."""
    shape = incremental.shape_of(query.text) if triples.generation is not None else None
    if shape is None or not _connected(shape):
        return _answer(query, triples)
    key = (home.root, view, query.name)
    kept = home.cache.query_solutions.get(key)
    if kept is not None and kept[0] != query.text:
        kept = None
    matches = incremental.PaneMatches() if kept is None else kept[3]
    change = triples.change
    if kept is not None and kept[1] == triples.generation:
        found = kept[2]
    elif kept is not None and change is not None and change.since == kept[1]:
        found = incremental.carried(shape, kept[2], triples.panes, change.removed, change.added, triples.terms,
                                    driver_term_id, matches)
    else:
        found = incremental.solutions(shape, triples.panes, triples.terms, driver_term_id, matches)
    home.cache.query_solutions[key] = (query.text, triples.generation, found, matches)
    return incremental.answer(shape, found)


def _connected(shape: incremental.Shape) -> bool:
    """Whether each pattern shares a variable with one before it, once they are ordered as
    the incremental join orders them: patterns that share none would be joined there as
    every pair of their rows, with no bound (``query.bound``); the full answer is bounded."""
    seen: set = set()
    left = [{t for t in triple if isinstance(t, (Variable, BNode))} for triple in shape.triples]
    while left:
        nxt = next((v for v in left if v & seen), left[0])
        if seen and not nxt & seen:
            return False
        left.remove(nxt)
        seen |= nxt
    return True


def _previous(home: Home, decl: ViewDecl, query: QueryDecl, earlier: list[state.Published]) -> pl.DataFrame:
    """The answer at the latest earlier close the query reported at: the previous processed
    close (under on-change the answer has not changed since it last reported), or under
    non-empty the latest where the view held a triple; empty before the first."""
    for record in reversed(earlier):
        found = _kept(home, decl.name, query, record) or _answered_again(home, decl, query, record)
        if found is None:
            break
        answer, size = found
        if query.report != ReportPolicy.NON_EMPTY or size > 0:
            return answer
    return pl.DataFrame({v: [] for v in query.variables}, schema={v: pl.String for v in query.variables})


def _answered_again(home: Home, decl: ViewDecl, query: QueryDecl, record: state.Published):
    """The answer at an earlier close, read again at the version it recorded; None when that
    version is gone (a vacuum): the query then reports as if it had no earlier answer."""
    try:
        triples = query_read.triples_at(home, decl.name, record.version, record.close, record.events_seq)
    except Exception as exc:  # Delta refuses the version: its files are vacuumed
        print(f"reasonlake: warning: view {decl.name}: query {query.name}: the answer at the previous close "
              f"(version {record.version}) cannot be read again ({str(exc).splitlines()[0][:200]}); "
              "this close's istream/dstream rows are taken against an empty answer", file=sys.stderr)
        return None
    try:
        answer = _answer(query, triples)
    except QueryBoundError:  # that close wrote no rows either (its line said why)
        print(f"reasonlake: warning: view {decl.name}: query {query.name}: the answer at the previous close "
              f"(version {record.version}) is past the query's bound; this close's istream/dstream rows are "
              "taken against an empty answer", file=sys.stderr)
        return None
    _keep(home, decl.name, query, record.close, record.version, answer, triples.height)
    return answer, triples.height


def _kept(home: Home, view: str, query: QueryDecl, record: state.Published):
    kept = home.cache.query_answers.get((home.root, view, query.name))
    if kept is None or kept[:3] != (record.close, record.version, query.text):
        return None
    return kept[3], kept[4]


def _keep(home: Home, view: str, query: QueryDecl, close: int, version: int, answer: pl.DataFrame,
          size: int) -> None:
    home.cache.query_answers[(home.root, view, query.name)] = (close, version, query.text, answer, size)
