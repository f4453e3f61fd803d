"""RSP-QL queries registered in a home (``reasonlake register``, ``slide QUERY``): the thesis's
listings as written, over streams ingested into the home, each answer checked against the
brute-force oracle of the thesis (``tests/rspql/oracle.py``) at every evaluation time."""
from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write
from tests.rspql import test_oracle as thesis
from tests.rspql.oracle import All, GraphDecl, Query, Window, WindowClose, WindowDecl, evaluate

MINUTE = thesis.MINUTE
PROLOGUE = f"PREFIX : <{thesis.EX}>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
# Listing 8.5 with its errata mended (decision 0074) and sioc:topic written :isNearby, as the
# oracle's stream has it
LISTING_8_5 = PROLOGUE + """
REGISTER STREAM :out
AS CONSTRUCT RSTREAM { ?shop a :PopularShop }
FROM NAMED WINDOW :lwin ON :in [RANGE PT60M STEP PT20M]
FROM NAMED WINDOW :swin ON :in [RANGE PT20M STEP PT20M]
FROM GRAPH :shops
WHERE {
  ?shop a :Shop
  WINDOW :lwin { SELECT ?shop (COUNT(*) AS ?totalLong) WHERE { ?m1 :isNearby ?shop . } GROUP BY ?shop }
  WINDOW :swin { SELECT ?shop (COUNT(*) AS ?totalShort) WHERE { ?m2 :isNearby ?shop . } GROUP BY ?shop }
  FILTER(?totalShort - ?totalLong > -1)
}
"""


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
