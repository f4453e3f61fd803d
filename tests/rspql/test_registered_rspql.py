"""RSP-QL queries registered in a home (``reasonlake register``, ``slide QUERY``): the thesis's
listings as written, over streams ingested into the home, each answer checked against the
brute-force oracle of the thesis (``tests/rspql/oracle.py``) at every evaluation time."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import write
from tests.declare.test_rspql_syntax import LISTING_8_5, PROLOGUE
from tests.rspql import listings
from tests.rspql import test_oracle as thesis
from tests.rspql.oracle import All, Entailment, GraphDecl, Query, Window, WindowClose, WindowDecl, evaluate

MINUTE = thesis.MINUTE


def jsonl(stream) -> str:
    return "".join(json.dumps({"s": s.n3(), "p": p.n3(), "o": o.n3(), "ts": t}) + "\n" for (s, p, o), t in stream)


def turtle(graph) -> str:
    return graph.serialize(format="nt")


def answer_rows(cli, table: str) -> list[tuple]:
    out = cli("sql", f"SELECT * FROM {table}", "--format", "json")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_listing_8_5_registered_answers_as_the_oracle_at_every_evaluation_time(cli, tmp_path: Path):
    query = write(tmp_path / "queries" / "trending.rspql", LISTING_8_5)
    shops = write(tmp_path / "queries" / "shops.nt", turtle(thesis.SHOPS))
    stream = write(tmp_path / "in.jsonl", jsonl(thesis.STREAM_IN))
    out = cli("register", str(query), "--graph", f"{thesis.EX}shops={shops}")
    assert "query out: registered" in out and "view out_lwin (created)" in out and "view out_swin (created)" in out
    cli("ingest", "in", str(stream))
    out = cli("slide", "out", "--until", str(130 * MINUTE))
    windows = [WindowDecl(thesis.EX.lwin, "in", Window(60 * MINUTE, 20 * MINUTE, 0)),
               WindowDecl(thesis.EX.swin, "in", Window(20 * MINUTE, 20 * MINUTE, 0))]
    oracle = evaluate(Query(thesis.LISTING_8_5_RESTATED, windows, All(*(WindowClose(w.name) for w in windows)),
                            graphs=[GraphDecl(thesis.SHOPS)], output="out", prefixes=thesis.PREFIXES),
                      {"in": thesis.STREAM_IN}, until_ms=130 * MINUTE, unit_ms=MINUTE)
    assert oracle.times == [60 * MINUTE, 80 * MINUTE, 100 * MINUTE, 120 * MINUTE]
    evaluated = [line.split()[1] for line in out.splitlines()[1:]]
    assert len(evaluated) == 4, out  # each shared close once: 60, 80, 100 and 120 minutes
    expected = sorted((s.n3(), p.n3(), o.n3(), t) for (s, p, o), t in oracle.stream)
    assert len(expected) == 2  # :b at 60, :c at 80 (Sec. 8.4)
    rows = answer_rows(cli, "out")
    found = sorted((r["subject"], r["predicate"], r["object"], r["close"]) for r in rows)
    assert [f[:3] for f in found] == [e[:3] for e in expected]
    # the output is a stream of the home: its items carry their evaluation time
    events = cli("sql", "SELECT s, ts FROM rl_events WHERE stream = 'out' ORDER BY ts", "--format", "json")
    assert [json.loads(line)["ts"] for line in events.splitlines()] == [t for *_, t in expected]
    # evaluated once: a second slide has nothing to do, and registering again changes nothing
    assert "no evaluation time" in cli("slide", "out", "--until", str(130 * MINUTE))
    assert "query out: unchanged" in cli("register", str(query), "--graph", f"{thesis.EX}shops={shops}")


# Listings 8.1 and 8.4 as written (C-SPARQL: FROM STREAM, FROM), their errata mended as the
# oracle's restatements mend them: "((COUNT" is "(COUNT", Q_1 constructs the :countLong that
# Listing 8.4 reads (Q_2 :countShort, over RANGE 20m), and $threshold$ is -1
LISTING_8_1 = PROLOGUE + listings.LISTING_8_1.replace("((COUNT", "(COUNT").replace(
    ":totalLong ?totalLong", ":countLong ?totalLong")
LISTING_8_1_SHORT = LISTING_8_1.replace("longStream", "shortStream").replace("RANGE 60m", "RANGE 20m").replace(
    ":countLong", ":countShort")
LISTING_8_4 = PROLOGUE + listings.LISTING_8_4.replace("$threshold$", "-1")


def test_the_network_of_listings_8_1_to_8_4_runs_in_dependency_order(cli, tmp_path: Path):
    shops = write(tmp_path / "q" / "shops.nt", turtle(thesis.G_SHOPS))
    files = {name: write(tmp_path / "q" / f"{name}.rspql", text)
             for name, text in (("long", LISTING_8_1), ("short", LISTING_8_1_SHORT), ("trending", LISTING_8_4))}
    # the last query first: it reads streams no query writes yet, and the network grows under it
    assert "query out: registered" in cli("register", str(files["trending"]))
    for name in ("long", "short"):
        cli("register", str(files[name]), "--graph", f"{thesis.EX}shops={shops}")
    cli("ingest", "in", str(write(tmp_path / "in.jsonl", jsonl(thesis.STREAM_IN))))
    out = cli("slide", "out", "--until", str(120 * MINUTE))
    order = [line.split()[0] for line in out.splitlines()[1:]]
    assert order.index("out") > max(order.index("longStream"), order.index("shortStream")), out
    expected = [(s.n3(), p.n3(), o.n3()) for (s, p, o), _ in thesis.POPULAR_B_AT_60_C_AT_80]
    rows = answer_rows(cli, "out")
    assert sorted((r["subject"], r["predicate"], r["object"]) for r in rows) == sorted(expected)
    assert sorted(r["close"][11:16] for r in rows) == ["01:00", "01:20"]  # :b at 60 minutes, :c at 80
    # a query reading its own network's output is a circle, refused naming it
    circle = write(tmp_path / "q" / "circle.rspql", PROLOGUE + "REGISTER RSTREAM :longStream2 AS CONSTRUCT { ?s ?p ?o } "
                   "FROM NAMED WINDOW :w ON :out [RANGE 20m] WHERE { WINDOW :w { ?s ?p ?o } }")
    cli("register", str(circle), "--name", "in", expect=1)  # its stream is `in`, which `long` reads, which `out` reads
    assert "would read its own answers" in cli.last_err


@pytest.mark.parametrize("t0, counts", [(0, {"a": 2, "b": 1}), (1, {"a": 3, "b": 1}), (2, {"a": 2})])
def test_figure_8_1_three_starts_give_the_three_answers(cli, tmp_path: Path, t0, counts):
    """Example 24: the same C-SPARQL query over windows starting at t0 = 0, 1 and 2 minutes
    counts s1-s3, s1-s4 and s3-s4 in its first window."""
    text = LISTING_8_1.replace("STEP 20m]", f"STEP 20m FROM {t0 * MINUTE}]")
    shops = write(tmp_path / "shops.nt", turtle(thesis.G_SHOPS))
    cli("register", str(write(tmp_path / "count.rspql", text)), "--graph", f"{thesis.EX}shops={shops}")
    cli("ingest", "in", str(write(tmp_path / "in.jsonl", jsonl(thesis.FIGURE_8_1_STREAM))))
    first_close = (t0 + 60) * MINUTE
    cli("slide", "longStream", "--until", str(first_close))
    rows = answer_rows(cli, "longStream")
    assert {r["subject"].rsplit("#", 1)[1][:-1]: int(r["object"].split('"')[1]) for r in rows} == counts


def test_the_example_query_over_the_example_stream_answers_as_the_oracle(cli):
    """``views/new_posters.rspql`` (the bundle's query) over ``examples/streams/social.jsonl``,
    under the example's ontology: bob is a new poster at 10:10, adam never (he posted in the
    six minutes before each of his posts)."""
    from rdflib import Graph

    from reasonlake.api import format_time, parse_time
    from tests.conftest import REPO

    cli("register", str(REPO / "views" / "new_posters.rspql"))
    cli("ingest", "social", str(REPO / "examples" / "streams" / "social.jsonl"))
    cli("slide", "new_posters", "--until", "2026-11-22T10:12:00Z")
    rows = answer_rows(cli, "new_posters")
    found = {(r["who"], r["post"], r["close"][:16]) for r in rows}
    t0 = parse_time("2026-11-22T10:00:00Z", what="t0")
    stream = [(next(iter(Graph().parse(data=f"{r['s']} {r['p']} {r['o']} .", format="nt"))),
               parse_time(r["ts"], what="ts")) for r in map(json.loads, (REPO / "examples/streams/social.jsonl").open())]
    sioc = Entailment(Graph().parse(REPO / "views" / "ontologies" / "sioc.ttl"))
    windows = [WindowDecl("http://example.org/streams/recent", "social", Window(2 * MINUTE, MINUTE, t0), entailment=sioc),
               WindowDecl("http://example.org/streams/earlier", "social", Window(6 * MINUTE, MINUTE, t0), entailment=sioc)]
    text = (REPO / "views" / "new_posters.rspql").read_text()
    body = text[text.index("SELECT"):].replace(text[text.index("FROM NAMED"):text.index("WHERE")], "")
    query = Query(body, windows, All(*(WindowClose(w.name) for w in windows)), operator="ISTREAM",
                  prefixes={"sioc": "http://rdfs.org/sioc/ns#", "": "http://example.org/streams/"})
    begin = t0 + 2 * MINUTE  # the first close at which a window holds an item (:recent's)
    oracle = evaluate(query, {"social": stream}, until_ms=t0 + 12 * MINUTE, start_ms=begin, unit_ms=MINUTE)
    expected = {(dict(mu)["who"].n3(), dict(mu)["post"].n3(), format_time(t)[:16]) for mu, t in oracle.output}
    assert found == expected and len(expected) == 1, (found, expected)  # bob's tweet5 at 10:10


class _ChangedSinceTheLastSharedClose:
    """ON CHANGE read at the closes the windows share: the window's content differs from the
    one at the previous time every window closed (the thesis's content change compares with
    the instant before, which at a close is the window still opening)."""

    def __init__(self, window: str, windows: list):
        self.window, self.windows = window, windows

    def holds(self, t: int, env) -> bool:
        before = t - 1
        while before > 0 and not all(w.window.closes_at(before) for w in self.windows):
            before -= 1
        return set(env.content(self.window, t)) != set(env.content(self.window, before) if before > 0 else [])


@pytest.mark.parametrize("report, operator", [("NON EMPTY", "DSTREAM"), ("ON CHANGE", "RSTREAM"), ("EVERY 4s", "ISTREAM")])
def test_report_policies_at_the_shared_closes_answer_as_the_oracle(cli, tmp_path: Path, report, operator):
    """The first window reports by ``report``, the second on each close: the query is
    evaluated where both hold (Definition 5.12), and IStream and DStream compare with the
    answer at the previous time it reported."""
    from rdflib import URIRef

    from tests.rspql.oracle import NonEmptyContent, Periodic

    ex = "http://example.org/"
    items = [(1500, "a", "b"), (1700, "b", "c"), (4200, "a", "c"), (7300, "c", "a"), (7400, "c", "b"), (12100, "b", "a")]
    stream = [((URIRef(ex + s), URIRef(ex + "p"), URIRef(ex + o)), ts) for ts, s, o in items]
    text = (f"PREFIX : <{ex}>\nREGISTER {operator} :out AS SELECT ?s ?o\n"
            f"FROM NAMED WINDOW :w1 ON :s [RANGE 2s STEP 1s REPORT {report}]\n"
            "FROM NAMED WINDOW :w2 ON :s [RANGE 3s STEP 1s]\n"
            "WHERE { WINDOW :w1 { ?s :p ?o } OPTIONAL { WINDOW :w2 { ?o :p ?s } } }")
    cli("register", str(write(tmp_path / "out.rspql", text)))
    cli("ingest", "s", str(write(tmp_path / "s.jsonl", "".join(
        json.dumps({"s": f"<{ex}{s}>", "p": f"<{ex}p>", "o": f"<{ex}{o}>", "ts": ts}) + "\n" for ts, s, o in items))))
    cli("slide", "out", "--until", "15000")
    windows = [WindowDecl(ex + "w1", "s", Window(2000, 1000, 0)), WindowDecl(ex + "w2", "s", Window(3000, 1000, 0))]
    strategy = {"NON EMPTY": NonEmptyContent(ex + "w1"), "EVERY 4s": Periodic(ex + "w1", 4000),
                "ON CHANGE": _ChangedSinceTheLastSharedClose(ex + "w1", windows)}[report]
    policy = All(WindowClose(ex + "w1"), WindowClose(ex + "w2"), strategy)
    query = Query(text[text.index("SELECT"):].replace(text[text.index("FROM NAMED"):text.index("WHERE")], ""),
                  windows, policy, operator=operator, prefixes={"": ex})
    begin = 2000  # the first close at which a window holds an item (:w1's first close)
    oracle = evaluate(query, {"s": stream}, until_ms=15000, start_ms=begin, unit_ms=100)
    expected = {(tuple(sorted((k, v.n3()) for k, v in mu)), t) for mu, t in oracle.output}
    import deltalake
    import polars as pl

    table = pl.from_arrow(deltalake.DeltaTable(str(cli.home / "rspql_out")).to_pyarrow_table())
    found = {(tuple(sorted((k, v) for k, v in row.items() if k != "close" and v is not None)), row["close"])
             for row in table.iter_rows(named=True)}
    assert found == expected and expected, (report, sorted(found), sorted(expected))


@pytest.mark.slow  # a Structured Streaming query's start: the slow tier
def test_the_runner_evaluates_a_query_after_each_micro_batch(cli, tmp_path: Path):
    """``run QUERY --source DIR``: the query's windows slide with the micro-batch and the query
    is evaluated up to the newest item, as ``slide`` evaluates it."""
    query = write(tmp_path / "queries" / "trending.rspql", LISTING_8_5)
    shops = write(tmp_path / "queries" / "shops.nt", turtle(thesis.SHOPS))
    cli("register", str(query), "--graph", f"{thesis.EX}shops={shops}")
    write(tmp_path / "incoming" / "in.jsonl", jsonl(thesis.STREAM_IN))
    out = cli("run", "out", "--source", str(tmp_path / "incoming"))
    assert "out 1" in out, out  # the newest item is at 75 minutes: one evaluation, at 60
    rows = answer_rows(cli, "out")
    assert [(r["subject"], r["close"][11:16]) for r in rows] == [(f"<{thesis.EX}b>", "01:00")]
