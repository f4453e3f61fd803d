"""Generated views queried at every close by both backends: the driver's (Polars over the
view read by delta-rs) and Spark's (the view never leaves Spark: ``REASONLAKE_DRIVER_READ_MB=0``)
give the solutions rdflib's own engine gives over ``reasonlake export`` of that close, for
generated queries (``tests/query/generated``) over a stream that derives, expires and renews,
whose items hold blank nodes now and then (a view stores them as IRIs: a query reads them as
blank nodes on both backends)."""
from __future__ import annotations

import random
import re


from reasonlake.api import Lakehouse
from reasonlake.engine.reads import query_read
from reasonlake.query.terms import constant
from tests.cli.helpers import jsonl, simple_view
from tests.query import generated
from tests.query.backends import view_triples
from tests.query.oracles import STORED_BLANK, graph_of_export
from tests.query.test_matches_rdflib import _seed, compare_answers

EX, OTHER = generated.EX, generated.OTHER
TBOX = (
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    f"<{EX}next> a owl:TransitiveProperty .\n<{EX}link> rdfs:subPropertyOf <{EX}next> .\n"
    f"<{OTHER}size> rdfs:subPropertyOf <{EX}value> .\n<{EX}label> rdfs:domain <{EX}Labelled> .\n"
)
CLOSES = range(3000, 9000, 1000)  # the first close is start + width
QUERIES_PER_CLOSE = 8
ON_SPARK_PER_CLOSE = 2


def _events(rng: random.Random, blank: bool = False) -> list[tuple]:
    """Items of generated graphs over eight seconds; an item of one second comes again two
    seconds later now and then (its facts renew), and the 3 s window lets the rest expire.
    ``blank``: the graphs hold blank nodes now and then (``generated.graph``)."""
    events, earlier = [], []
    for second in range(8):
        drawn = rng.sample(generated.graph(rng, blank=blank), 6)
        for s, p, o in drawn:
            events.append((constant(s), constant(p), constant(o), second * 1000 + rng.randint(1, 999)))
        if second >= 2:
            for item in rng.sample(earlier[second - 2], 2):
                events.append((*item, second * 1000 + rng.randint(1, 999)))
        earlier.append([(constant(s), constant(p), constant(o)) for s, p, o in drawn])
    return events


def _totals(history: str) -> dict[str, int]:
    lines = [line.split() for line in history.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    return {name: sum(int(r[header.index(name)]) for r in rows if re.fullmatch(r"\d+", r[header.index(name)]))
            for name in ("derived", "expired", "renewed")}


def test_generated_views_answer_as_rdflib_at_every_close_on_both_backends(spark, cli, tmp_path, monkeypatch):
    rng = random.Random(_seed() + 2)
    cli("view", "create", str(simple_view(tmp_path, width="3s", slide="1s", tbox=TBOX)))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", _events(rng, blank=True))))
    cli("slide", "v", "--until", str(CLOSES[-1]))
    totals = _totals(cli("history", "v"))
    assert all(totals.values()), f"the stream must derive, expire and renew: {totals}"
    home = Lakehouse(str(cli.home), spark=spark).home
    compared = {"driver": 0, "spark": 0}
    blanks = 0
    for close in CLOSES:
        export = cli("export", "v", "--close", str(close))
        blanks += len(STORED_BLANK.findall(export))
        graph = graph_of_export(export)
        for k in range(QUERIES_PER_CLOSE):
            drawn = generated.Query(rng)
            query = drawn.query()
            backends = ["driver", "spark"] if k < ON_SPARK_PER_CLOSE else ["driver"]
            for backend in backends:
                triples = view_triples(home, "v", close, backend, monkeypatch)
                found = compare_answers(graph, query, lambda: triples.answer(query), drawn.as_set)
                if found is not None and found.startswith("SKIP"):
                    continue
                assert found is None, (f"close {close}, {backend} (REASONLAKE_PROPERTY_SEED={_seed()}):\n{query}\n"
                                       f"{found}\nexport:\n{export}")
                compared[backend] += 1
    assert compared["driver"] >= 0.9 * len(CLOSES) * QUERIES_PER_CLOSE
    assert compared["spark"] >= 0.9 * len(CLOSES) * ON_SPARK_PER_CLOSE
    assert blanks, "the views must hold blank nodes"
    # a warm process answers the next query at a close from the triples it read there
    monkeypatch.delenv("REASONLAKE_DRIVER_READ_MB", raising=False)
    first, _ = query_read.triples(home, "v", CLOSES[-1])
    assert query_read.triples(home, "v", CLOSES[-1])[0] is first
    assert query_read.triples(home, "v", CLOSES[-2])[0] is not first
