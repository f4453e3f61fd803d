"""ORDER BY over a variable an OPTIONAL leaves unbound in some rows: unbound first, then
blank nodes, IRIs and literals (SPARQL 1.1, 15.1), and DESC the reverse, as rdflib orders
them. The generated queries draw no ORDER BY and the other ordered cases bind every key.
Driver only: Spark sorts by the same keys (``ordering.sort_keys``), and
``test_spark_backend`` holds its order to the driver's."""
from __future__ import annotations

import pytest
import rdflib

from reasonlake.query import run
from tests.query.small_graphs import triples_of

DATA = """@prefix ex: <http://ex/> .
ex:s1 ex:v 1 ; ex:label "b" . ex:s2 ex:v 2 . ex:s3 ex:v 3 ; ex:label "a" . ex:s4 ex:v 4 ; ex:label ex:iri .
ex:s5 ex:v 5 ; ex:label [] .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
ASCENDING = ["s2", "s5", "s4", "s3", "s1"]  # unbound, blank node, IRI, "a", "b"


@pytest.mark.parametrize("key,expected", [("?l", ASCENDING), ("DESC(?l)", ASCENDING[::-1])])
def test_unbound_sorts_before_every_term(key, expected):
    graph = rdflib.Graph().parse(data=DATA, format="turtle")
    query = PREFIX + f"SELECT ?s ?l WHERE {{ ?s ex:v ?v OPTIONAL {{ ?s ex:label ?l }} }} ORDER BY {key}"
    ours = [s for s, _ in run(triples_of(graph), query).frame.rows()]
    assert ours == [f"<http://ex/{s}>" for s in expected]
    assert ours == [row[0].n3() for row in graph.query(query)]
