"""Registered queries whose solutions a warm process carries from close to close
(``query.incremental``: a basic graph pattern under FILTERs) answer at every close what
rdflib's own engine answers over ``export`` of that close, on a generated stream that
derives, expires and renews; the carried path is the one that ran."""
from __future__ import annotations

import random
from collections import Counter

import polars as pl

from reasonlake.api import Lakehouse
from reasonlake.query import incremental
from reasonlake.query.answer import Answer
from tests.cli.helpers import jsonl, simple_view
from tests.query import generated
from tests.query.oracles import graph_as_written
from tests.query.test_matches_rdflib import _seed, compare_answers
from tests.query.test_registered_queries import _declare, _rows
from tests.query.test_views_both_backends import CLOSES, TBOX, _events, _totals

P = generated.PREFIXES
CARRIED = {
    # a projection that drops a variable: a multiset
    "chain": P + "SELECT ?a ?c WHERE { ?a ex:next ?b . ?b ex:next ?c }",
    "typed": P + "SELECT DISTINCT ?a WHERE { ?a ex:link ?b . ?b a ex:Labelled }",
    "valued": P + "SELECT * WHERE { ?a ex:next ?b . ?b ex:value ?v FILTER(bound(?v) && isNumeric(?v) && ?v > 2) }",
    "any": P + "SELECT ?s ?o WHERE { ?s ?p ?o FILTER(isIRI(?o)) FILTER(?p != ex:link) }",
    "blank": P + "SELECT ?x WHERE { ?x ex:next _:m . _:m ex:next ?y FILTER(STRENDS(STR(?y), \"1\")) }",
    "loop": P + "SELECT ?x WHERE { ?x ex:next ?x }",
    "constant": P + "SELECT ?x WHERE { ?x ex:link ex:n1 . ex:n1 ex:next ?y }",
}
FROM_SCRATCH = {"grouped": P + "SELECT ?a (COUNT(?b) AS ?n) WHERE { ?a ex:next ?b } GROUP BY ?a"}


def test_the_shapes_carried_and_those_answered_again():
    assert all(incremental.shape_of(text) is not None for text in CARRIED.values())
    for text in [*FROM_SCRATCH.values(),
                 P + "SELECT ?a WHERE { ?a ex:next ?b OPTIONAL { ?b ex:value ?v } }",
                 P + "SELECT ?a WHERE { ?a ex:next+ ?b }",
                 P + "SELECT ?a WHERE { ?a ex:next ?b FILTER(RAND() < 0.5) }",
                 P + "SELECT ?a WHERE { ?a ex:next ?b FILTER NOT EXISTS { ?b ex:next ?a } }",
                 P + "SELECT ?a WHERE { ?a ex:next ?b } LIMIT 3",
                 P + "SELECT ?a WHERE { { ?a ex:next ?b } UNION { ?a ex:link ?b } }"]:
        assert incremental.shape_of(text) is None, text


def test_carried_answers_equal_rdflib_at_every_close(spark, cli, tmp_path, monkeypatch):
    monkeypatch.delenv("REASONLAKE_DRIVER_READ_MB", raising=False)
    carried = Counter()
    real = incremental.carried

    def counted(shape, *args):
        carried[shape.selected] += 1
        return real(shape, *args)
    monkeypatch.setattr(incremental, "carried", counted)

    rng = random.Random(_seed() + 5)
    view = simple_view(tmp_path, width="3s", slide="1s", tbox=TBOX)
    _declare(view, [{"name": name, "text": text} for name, text in {**CARRIED, **FROM_SCRATCH}.items()])
    lake = Lakehouse(str(cli.home), spark=spark)
    lake.create_views([str(view)])
    events = _events(rng)
    # two ingests: the second's terms reach the dictionary between closes (its new files read)
    lake.ingest("s", [str(jsonl(tmp_path / "early.jsonl", [e for e in events if e[3] <= CLOSES[1]]))])
    for close in CLOSES:  # one close a call, in this warm process
        if close == CLOSES[2]:
            lake.ingest("s", [str(jsonl(tmp_path / "late.jsonl", [e for e in events if e[3] > CLOSES[1]]))])
        lake.slide("v", close)
    totals = _totals(cli("history", "v"))
    assert all(totals.values()), f"the stream must derive, expire and renew: {totals}"
    assert [r.close for r in lake.history("v")] == list(CLOSES)
    compared = 0
    for name, text in {**CARRIED, **FROM_SCRATCH}.items():
        rows = _rows(lake, "v", name)
        variables = next(q for q in lake.home.view("v").queries if q.name == name).variables
        for close in CLOSES:
            export = "\n".join(line.rstrip("\n") for line in lake.export("v", close=close))
            graph = graph_as_written(export)
            found = rows.get(close, Counter())
            listed = [row for row, n in found.items() for _ in range(n)]
            frame = pl.DataFrame([dict(zip(variables, row)) for row in listed],
                                 schema={v: pl.String for v in variables}, orient="row")
            differs = compare_answers(graph, text, lambda: Answer("SELECT", list(variables), frame))
            assert differs is None, (f"query {name} at close {close} (REASONLAKE_PROPERTY_SEED={_seed()}):\n"
                                     f"{text}\n{differs}")
            compared += bool(listed)
    assert compared >= len(CLOSES) * 3  # the queries found something at most closes
    # every carried query was carried at every close but the first of the process
    assert {tuple(incremental.shape_of(t).selected) for t in CARRIED.values()} == set(carried)
    assert min(carried.values()) >= len(CLOSES) - 2, carried
