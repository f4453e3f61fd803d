"""`reasonlake query` over a real view (ingest, slide, inferred facts, expiry) answers at two
closes what rdflib's SPARQL engine answers over `reasonlake export` of the same close."""
from __future__ import annotations

import json
from collections import Counter

import rdflib

from tests.cli.helpers import EX, ex, jsonl, simple_view

TBOX = (
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    f"<{EX}knows> rdfs:domain <{EX}Person> .\n<{EX}Person> rdfs:subClassOf <{EX}Agent> .\n"
    f"<{EX}next> a owl:TransitiveProperty .\n"
)
XSD = "http://www.w3.org/2001/XMLSchema#"
QUERIES = [
    # inferred types, grouped and counted
    f"PREFIX ex: <{EX}> SELECT ?x (COUNT(?y) AS ?n) WHERE {{ ?x a ex:Agent . OPTIONAL {{ ?x ex:knows ?y }} }} GROUP BY ?x",
    # a path over the (transitively closed) links, and values compared by number
    f"PREFIX ex: <{EX}> SELECT ?a ?b ?age WHERE {{ ?a ex:next/ex:next? ?b . OPTIONAL {{ ?b ex:age ?age }} "
    "FILTER(!bound(?age) || ?age >= 30) }",
    f"PREFIX ex: <{EX}> SELECT ?p ?x WHERE {{ {{ ?p ex:knows ?x }} UNION {{ ?p ex:age ?x }} MINUS {{ ?p ex:next ?z }} }}",
]


def _answers(text: str) -> Counter:
    doc = json.loads(text)
    variables = doc["head"]["vars"]
    return Counter(tuple(_term(b.get(v)) for v in variables) for b in doc["results"]["bindings"])


def _term(binding):
    if binding is None:
        return None
    if binding["type"] == "uri":
        return rdflib.URIRef(binding["value"])
    return rdflib.Literal(binding["value"], lang=binding.get("xml:lang"),
                          datatype=binding.get("datatype"))


def _rdflib_answers(export: str, query: str) -> Counter:
    graph = rdflib.Graph()
    graph.parse(data=export, format="nt")
    result = graph.query(query)
    return Counter(tuple(row.get(str(v)) for v in result.vars) for row in (r.asdict() for r in result))


def test_query_matches_rdflib_over_the_export_at_two_closes(spark, cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path, width="3s", slide="1s", tbox=TBOX)))
    events = []
    for t in range(1, 7):
        events.append((ex(f"p{t % 3}"), ex("knows"), ex(f"p{(t + 1) % 4}"), t * 1000))
        events.append((ex(f"n{t}"), ex("next"), ex(f"n{t + 1}"), t * 1000))
        events.append((ex(f"n{t}"), ex("age"), f'"{20 + 3 * t}"^^<{XSD}integer>', t * 1000))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "6000")
    compared = 0
    for close in ("4000", "6000"):
        export = cli("export", "v", "--close", close)
        assert export.strip()
        for query in QUERIES:
            ours = _answers(cli("query", "v", query, "--close", close, "--format", "json"))
            assert ours == _rdflib_answers(export, query), (close, query)
            compared += bool(ours)
    assert compared == 2 * len(QUERIES)  # every query answered something at both closes
    # the API's answer, and as a Spark DataFrame
    from reasonlake.api import Lakehouse

    answer = Lakehouse(str(cli.home), spark=spark).query("v", QUERIES[0], close=6000)
    assert answer.close == 6000 and answer.variables == ["x", "n"]
    assert sorted(answer.to_spark(spark).collect()) == sorted(tuple(r) for r in answer.frame.rows())
    # a query from a file; an unsupported construct is one line and exit 1
    (tmp_path / "q.rq").write_text(f"PREFIX ex: <{EX}> ASK {{ ex:n5 ex:next+ ex:n7 }}")
    assert cli("query", "v", str(tmp_path / "q.rq"), "--close", "6000") == "true\n"
    cli("query", "v", "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }", expect=1)
    assert "RL195" in cli.last_err and "GRAPH is not supported" in cli.last_err
    cli("query", "v", "SELECT * WHERE { ?s ?p }", expect=1)
    assert "line 1, column" in cli.last_err
