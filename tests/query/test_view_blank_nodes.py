"""A view's blank nodes (stored as IRIs of the skolem prefix, ``parse/collected``) are blank
nodes to a query on both backends: isBLANK, isIRI, STR and the string tests over them, and
over the facts derived about them, give rdflib's answers over the view's export."""
from __future__ import annotations

from reasonlake.api import Lakehouse
from tests.cli.helpers import EX, jsonl, simple_view
from tests.query.backends import view_triples
from tests.query.oracles import STORED_BLANK, graph_of_export
from tests.query.test_matches_rdflib import compare_answers

# ex:knows has the domain ex:Person (``simple_view``): a blank node that knows is derived a Person
EVENTS = [
    ("_:a", f"<{EX}knows>", "_:b", 100),
    ("_:a", f"<{EX}name>", '"urn:a"', 200),
    (f"<{EX}c>", f"<{EX}knows>", "_:a", 300),
    (f"<{EX}c>", f"<{EX}knows>", f"<{EX}d>", 400),
    ("_:b", f"<{EX}name>", '"bee"@en', 500),
]
PREFIX = f"PREFIX ex: <{EX}> "
QUERIES = [
    "SELECT ?s ?o WHERE { ?s ex:knows ?o FILTER(isBLANK(?o)) }",
    "SELECT ?s ?o WHERE { ?s ex:knows ?o FILTER(isIRI(?s) && !isBLANK(?o)) }",
    'SELECT ?s ?n WHERE { ?s ex:name ?n FILTER(STRSTARTS(STR(?s), "urn") || CONTAINS(STR(?n), "urn")) }',
    'SELECT ?s ?o WHERE { ?s ex:knows ?o FILTER(CONTAINS(STR(?o), "genid") || isIRI(?o)) }',
    "SELECT ?s WHERE { ?s a ex:Person FILTER(isBLANK(?s)) }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(isIRI(?s)) }",
]


def test_a_views_blank_nodes_are_blank_nodes_to_queries_on_both_backends(spark, cli, tmp_path, monkeypatch):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", EVENTS)))
    cli("slide", "v", "--until", "4000")
    export = cli("export", "v", "--close", "4000")
    # the export writes what the view holds, each blank node as its stored IRI; rdflib's
    # graph of it has them as blank nodes, as a query reads them (decision 0069)
    assert len(set(STORED_BLANK.findall(export))) == 5, export  # a label is scoped to its item
    graph = graph_of_export(export)
    home = Lakehouse(str(cli.home), spark=spark).home
    for backend in ("driver", "spark"):
        triples = view_triples(home, "v", 4000, backend, monkeypatch)
        for query in QUERIES:
            found = compare_answers(graph, PREFIX + query, lambda: triples.answer(PREFIX + query))
            assert found is None, f"{backend}:\n{query}\n{found}\nexport:\n{export}"
        # the blank nodes are there to be found: a Person derived of each that knows
        persons = triples.answer(PREFIX + QUERIES[4]).frame
        assert persons.height == 1, persons
