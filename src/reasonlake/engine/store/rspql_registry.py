"""What a home keeps of its RSP-QL queries: their definitions (``rspql_queries``), the
evaluation times each has answered (``rspql_state``), and the network they form.

Both tables are append-only and made by their first write (a home made before RSP-QL
queries needs no migration): the latest definition row of a name is the query; an
evaluation is recorded after its answers are written, so that the latest recorded time of a
definition is where the next evaluation resumes (``engine.jobs.rspql.advance``).

A network: query B *reads* query A when one of B's windows is over A's output stream. Every
query's upstream is evaluated before it (dependency order), and a registration that would
close a circle is refused, naming it.
"""
from __future__ import annotations

from reasonlake.declare.rspql_file import RspqlDecl
from reasonlake.engine.store import table_log, table_writes
from reasonlake.engine.store.home import Home
from reasonlake.errors import SparqlError

QUERIES, STATE = "rspql_queries", "rspql_state"
_QUERY_SCHEMA = "name STRING, fingerprint STRING, definition STRING"
_STATE_SCHEMA = "name STRING, fingerprint STRING, t BIGINT, reported BIGINT"


def answers_path(home: Home, name: str) -> str:
    """The query's answer table (SQL: ``name``)."""
    return home.path(f"rspql_{name}")


def answers_sql(home: Home, decl: RspqlDecl) -> str | None:
    """The query's answers up to its latest recorded evaluation, as SQL (its catalog name and
    `reasonlake sql`'s): close as a timestamp, then its variables (a CONSTRUCT: subject,
    predicate, object); None before its first evaluation. Rows an interrupted evaluation wrote
    past it stay hidden until it is redone, which replaces them."""
    through = evaluated_through(home, decl)
    if through is None or not table_log.is_delta(home.spark, answers_path(home, decl.name)):
        return None
    through = through[0]
    columns = ("subject", "predicate", "object") if decl.form == "CONSTRUCT" else decl.variables()
    shown = "".join(f", `{c}`" for c in columns)
    return (f"SELECT timestamp_millis(close) AS close{shown} FROM delta.`{answers_path(home, decl.name)}` "
            f"WHERE close <= {int(through)}")


def registered(home: Home) -> dict[str, RspqlDecl]:
    """The home's RSP-QL queries by name (the latest definition of each)."""
    if not table_log.is_delta(home.spark, home.path(QUERIES)):
        return {}
    rows = home.small_rows(QUERIES, ["name", "definition", "at"])
    latest = {}
    for row in sorted(rows, key=lambda r: r.at):
        latest[row.name] = RspqlDecl.from_json(row.definition)
    return latest


def save(home: Home, decl: RspqlDecl) -> None:
    table_writes.append_rows(home.spark, home.path(QUERIES), [(decl.name, decl.fingerprint(), decl.to_json())],
                             _QUERY_SCHEMA)


def evaluated_through(home: Home, decl: RspqlDecl) -> tuple[int, int | None] | None:
    """The latest evaluation time recorded for this definition of the query, and the latest
    at or before it where the query reported (None: not yet; a report policy may skip one)."""
    if not table_log.is_delta(home.spark, home.path(STATE)):
        return None
    fingerprint = decl.fingerprint()
    rows = [r for r in home.small_rows(STATE, ["name", "fingerprint", "t", "reported"], where=("name", decl.name))
            if r.fingerprint == fingerprint]
    if not rows:
        return None
    latest = max(rows, key=lambda r: r.t)
    return latest.t, latest.reported


def record(home: Home, decl: RspqlDecl, t: int, reported: int | None) -> None:
    table_writes.append_rows(home.spark, home.path(STATE), [(decl.name, decl.fingerprint(), t, reported)],
                             _STATE_SCHEMA)


def producers(queries: dict[str, RspqlDecl]) -> dict[str, str]:
    """Which query streams into each stream a query produces (CONSTRUCT queries only)."""
    return {q.output_stream: q.name for q in queries.values()}


def upstream(queries: dict[str, RspqlDecl], name: str) -> list[str]:
    """The queries ``name`` reads, directly or not, then ``name``: in an order where each
    comes after every query it reads."""
    made = producers(queries)
    order: list[str] = []

    def visit(query: str) -> None:
        if query in order:
            return
        for stream in queries[query].input_streams():
            if stream in made and made[stream] != query:
                visit(made[stream])
        order.append(query)

    visit(name)
    return order


def check_network(queries: dict[str, RspqlDecl], new: RspqlDecl) -> None:
    """``new`` among ``queries`` forms no circle, and reads only streams of triples."""
    every = {**queries, new.name: new}
    made = producers(every)
    for stream in new.input_streams():
        producer = every.get(made.get(stream, ""))
        if producer is not None and producer.form != "CONSTRUCT":
            raise SparqlError(f"query {new.name} reads stream {stream}, the answers of SELECT query {producer.name}: "
                              "a window holds triples, so the query it reads must be a CONSTRUCT")

    def path_back(query: str, seen: list[str]) -> list[str] | None:
        for stream in every[query].input_streams():
            source = made.get(stream)
            if source is None:
                continue
            if source == new.name:
                return [*seen, query, source]
            if source not in seen and source != query:
                found = path_back(source, [*seen, query])
                if found:
                    return found
        return None

    circle = path_back(new.name, [])
    if circle is not None:
        raise SparqlError(f"query {new.name} would read its own answers: {' -> '.join(circle)} (each reads the "
                          "stream the next one registers); a network of queries has no circle")
