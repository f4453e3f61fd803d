"""Registering an RSP-QL query, and bringing a network of them up to a time (decision 0074).

``register``: each named window becomes a view (one already in the home with the same
stream, window and entailment regime is shared instead: its name is kept), then the query's
definition is saved with the views it reads.

``advance``: every query the query reads (directly or not) first, in dependency order;
for each, its windows' views slid to the time, then the query evaluated at each shared close
not evaluated yet (``evaluation``). At each evaluation time t, in this order:
1. the answer; what the stream operator streams out against the answer at the previous
   evaluation time (``query.streams``: RStream all of it, IStream what is new, DStream what
   left);
2. a CONSTRUCT's streamed triples as items of the home's stream of the query's name, at
   time t, under the Delta transaction (query, t): a redo writes nothing twice;
3. every ``RECORD_EVERY`` times and at the last: their rows in the answer table (replacing
   any an interrupted attempt wrote from the first of them on), then the last recorded
   (``registry.record``): a crash before it redoes them, and each write is idempotent.
A query downstream then slides its windows over that stream to the same time, so its window
closing at t holds what its upstream streamed out at t.
"""
from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, replace

import polars as pl

from reasonlake.declare.rsep import events_of
from reasonlake.declare.rspql_file import RspqlDecl
from reasonlake.engine.ingest.events import ingest_contents
from reasonlake.engine.jobs.rspql import evaluation, matching
from reasonlake.engine.jobs.rspql.consumption import Consumption
from reasonlake.engine.jobs.slide import slide
from reasonlake.engine.jobs.views import check_views, create_view
from reasonlake.engine.process import faults
from reasonlake.engine.store import catalog, lease, query_tables, state
from reasonlake.engine.store import rspql_registry as registry
from reasonlake.engine.store.home import Home
from reasonlake.errors import UnknownViewError, ViewChangedError
from reasonlake.query import Answer, construct, streams
from reasonlake.query.streams import StreamOperator


@dataclass(frozen=True)
class Registered:
    name: str
    outcome: str  # registered or unchanged
    views: tuple[tuple[str, str, str], ...]  # window IRI, view, what happened to the view


@dataclass(frozen=True)
class Evaluated:
    query: str
    t: int
    answers: int  # solutions (or triples) in the answer at t
    streamed: int  # rows the stream operator streamed out at t
    seconds: float


def register(home: Home, decl: RspqlDecl, *, now: int) -> Registered:
    queries = registry.registered(home)
    existing = queries.get(decl.name)
    if existing is not None and existing.fingerprint() != decl.fingerprint():
        raise ViewChangedError(f"RSP-QL query {decl.name} is registered with another text; register this one under "
                               "another name (--name): the stream the first one wrote keeps what it streamed",
                               code="RL151")
    views = {row.name: row.fingerprint for row in home.small_rows("views", ["name", "fingerprint"])}
    clash = next((v for v in views if v.lower() == decl.name.lower()), None)
    if clash is not None:
        raise ViewChangedError(f"RSP-QL query {decl.name} would share its SQL name with view {clash}; give the query "
                               "another name (--name)", code="RL151")
    registry.check_network(queries, decl)
    prefixes = dict(decl.registration.prefixes)
    for m in decl.registration.matches:  # an event's pattern is refused now, not at its first evaluation
        for event in events_of(m.pattern):
            matching.triples(event, prefixes)
    planned, made = [], []
    for window, view in decl.window_views():
        shared = next((name for name, fp in views.items() if fp == view.fingerprint()), None)
        if shared is not None:
            planned.append((window.name, shared, "shared" if existing is None else "unchanged"))
            continue
        if view.name in views:
            raise ViewChangedError(f"view {view.name} (window {window.name} of query {decl.name}) exists with "
                                   "another definition; give the query another name (--name)", code="RL151")
        made.append(view)
        planned.append((window.name, view.name, "created"))
    for checked in check_views(home, made, rebuild=False):
        create_view(home, checked, now=now)
    if existing is None:
        registry.save(home, replace(decl, views=tuple((w, v) for w, v, _ in planned)))
    return Registered(decl.name, "unchanged" if existing is not None else "registered", tuple(planned))


def advance(home: Home, name: str, until: int) -> list[Evaluated]:
    """The query ``name`` and every query it reads, brought up to ``until``."""
    queries = registry.registered(home)
    if name not in queries:
        raise UnknownViewError(f"no view or RSP-QL query named {name!r}; `reasonlake register FILE.rspql` "
                                "registers a query")
    done: list[Evaluated] = []
    for query in registry.upstream(queries, name):
        decl = queries[query]
        for view in dict.fromkeys(v for _, v in decl.views):
            slide(home, view, until)
        with lease.writing(home, f"rspql_{query}", "slide"):
            evaluated = _evaluate_pending(home, decl, until)
        if evaluated:
            show_in_catalog(home, decl)
        done += evaluated
    return done


def show_in_catalog(home: Home, decl: RspqlDecl) -> None:
    """Point the query's catalog name (where the home has a catalog) at its answers up to
    its latest evaluation, as `reasonlake sql` shows them; a name that could not be
    re-pointed is a warning (`reasonlake init` re-points every name)."""
    where = catalog.target(home)
    sql = registry.answers_sql(home, decl) if where is not None else None
    if sql is None:
        return
    try:
        home.spark.sql(f"CREATE OR REPLACE VIEW {where}.`{decl.name}` AS {sql}")
    except Exception as exc:  # a stale catalog name must not undo recorded evaluations
        print(f"reasonlake: warning: the catalog name of RSP-QL query {decl.name} still shows earlier answers "
              f"({str(exc).splitlines()[0][:300]}); `reasonlake init` re-points every name", file=sys.stderr)


def _evaluate_pending(home: Home, decl: RspqlDecl, until: int) -> list[Evaluated]:
    windows = [home.view(v).window for _, v in decl.views]
    upto = min(w.close_at_or_before(until) for w in windows)
    through = registry.evaluated_through(home, decl)
    after, reported = through if through is not None else (None, None)
    if after is None:
        firsts = [history[0].close for _, v in decl.views if (history := state.readable(home, v))]
        if not firsts:
            return []
        begin = min(firsts)
    else:
        begin = after + 1
    times = evaluation.shared_closes(windows, begin, upto)
    if not times:
        return []
    static = evaluation.static_graphs(decl)
    consumed = Consumption(home, decl, after)
    # the answer at the latest time the query reported at (Definitions 5.10, 5.11: the
    # previous instant of the evaluation time set), empty before the first
    previous = Answer(decl.form, frame=evaluation.no_solutions(decl)) if reported is None else \
        _answer(home, decl, reported, static, consumed)
    before = evaluation.previous_shared_close(windows, times[0])
    operator = StreamOperator(decl.registration.operator)
    done, rows, batch = [], [], []
    for t in times:
        started = time.monotonic()
        if evaluation.reports(home, decl, t, before):
            current = _answer(home, decl, t, static, consumed)
            # Definition 5.13: the operator streams solutions out; a CONSTRUCT's template is
            # instantiated with those (a triple two solutions make is streamed while one remains)
            out = streams.rows(operator, previous.frame, current.frame)
            if current.form == "CONSTRUCT":
                out = construct.graph(out, current.template) if out.height else evaluation.empty_graph()
                _stream(home, decl, t, out)
            rows.append(out.select(pl.col(c).cast(pl.String) for c in _columns(decl)).with_columns(
                pl.lit(t, pl.Int64).alias(query_tables.CLOSE)))
            previous, reported = current, t
            done.append(Evaluated(decl.name, t, current.frame.height, out.height,
                                  round(time.monotonic() - started, 3)))
        batch.append(t)
        before = t
        if len(batch) == RECORD_EVERY or t == times[-1]:
            consumed.write()
            _record(home, decl, batch, rows, reported)
            rows, batch = [], []
    return done


# evaluations whose answers are written in one commit, then recorded: a commit or two per
# batch rather than per evaluation (a crash redoes the unrecorded ones, whose writes replace)
RECORD_EVERY = 64


def _columns(decl: RspqlDecl) -> list[str]:
    return list(evaluation.COLUMNS) if decl.form == "CONSTRUCT" else decl.variables()


def _answer(home: Home, decl: RspqlDecl, t: int, static: evaluation.StaticGraphs, consumed: Consumption) -> Answer:
    key = (home.root, "rspql", decl.name)
    kept = home.cache.query_answers.get(key)
    if kept is not None and kept[:2] == (t, decl.fingerprint()):
        return kept[2]
    found = evaluation.answer_at(home, decl, t, static, consumed)
    home.cache.query_answers[key] = (t, decl.fingerprint(), found)
    return found


def _record(home: Home, decl: RspqlDecl, batch: list[int], rows: list[pl.DataFrame], reported: int | None) -> None:
    """The answers at a batch of evaluation times in place of any written from its first on,
    then its last time recorded, with the latest the query reported at."""
    if rows:
        query_tables.replace_rows_from(home, registry.answers_path(home, decl.name), pl.concat(rows), batch[0])
    faults.reached("rspql: answers")
    registry.record(home, decl, batch[-1], reported)


def _stream(home: Home, decl: RspqlDecl, t: int, out: pl.DataFrame) -> None:
    """A CONSTRUCT's streamed triples at ``t``: items of its stream, at time t, once."""
    if not out.height:
        return

    content = ("\n".join(construct.lines(out)) + "\n").encode()
    sha = hashlib.sha256(content).hexdigest()
    ingest_contents(home, decl.output_stream, [(f"rspql_{decl.name}_{t}.nt", sha, content)], ts=t,
                    txn=(f"rspql-{decl.name}-{decl.fingerprint()}", t))
    faults.reached("rspql: stream")
