"""A GROUP BY with only COUNT and SAMPLE of variables, counted by Spark's own aggregation
(``SparkFrames.counted_groups``), gives rdflib's answers: keys unbound in some rows, no
GROUP BY over no rows (one group, COUNT 0), DISTINCT, COUNT(*), and a HAVING reading the
count's value."""
from __future__ import annotations

import pytest
from rdflib.plugins.sparql import prepareQuery

from reasonlake.query import aggregates
from tests.query.small_graphs import on_spark, rdflibs

TURTLE = '''
@prefix ex: <http://example.org/> .
ex:a ex:p ex:x, ex:y, "1", "1"@en .
ex:b ex:p ex:x .
ex:c ex:p "2", "3" .
ex:x ex:q ex:a .
ex:y ex:q ex:a, ex:b .
'''

PREFIX = "PREFIX ex: <http://example.org/> "
QUERIES = [
    "SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ex:p ?o } GROUP BY ?s",
    "SELECT ?s (COUNT(*) AS ?n) (SAMPLE(?s) AS ?t) WHERE { ?s ex:p ?o } GROUP BY ?s",
    "SELECT ?r (COUNT(DISTINCT ?s) AS ?n) (COUNT(?s) AS ?m) WHERE { ?s ex:p ?o OPTIONAL { ?o ex:q ?r } } GROUP BY ?r",
    "SELECT (COUNT(?o) AS ?n) WHERE { ?s ex:p ?o }",
    "SELECT (COUNT(*) AS ?n) (COUNT(?o) AS ?m) WHERE { ?s ex:nothing ?o }",
    "SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ex:nothing ?o } GROUP BY ?s",
    "SELECT ?s ?o (COUNT(?r) AS ?n) WHERE { ?s ex:p ?o OPTIONAL { ?o ex:q ?r } } GROUP BY ?s ?o HAVING (COUNT(?r) >= 1)",
    "SELECT ?s WHERE { ?s ex:p ?o } GROUP BY ?s HAVING (COUNT(?o) > 1)",
    "SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ex:p ?o } GROUP BY ?s ORDER BY DESC(?n) ?s LIMIT 2",
]


def _aggregate_join(text: str):
    node = prepareQuery(PREFIX + text).algebra
    while node.name != "AggregateJoin":
        node = node.p
    return node


@pytest.mark.parametrize("query", QUERIES)
def test_spark_counts_groups_as_rdflib_does(spark, query):
    join = _aggregate_join(query)
    # counted by Spark's aggregation, not the generic Python group: else this proves nothing of it
    assert aggregates.counts_only(join.p.expr, join.A, ["s", "o", "r"]) is not None
    assert on_spark(spark, TURTLE, PREFIX + query) == rdflibs(TURTLE, PREFIX + query)


def test_other_aggregates_take_the_generic_group():
    join = _aggregate_join("SELECT ?s (SUM(?o) AS ?n) WHERE { ?s ex:p ?o } GROUP BY ?s")
    assert aggregates.counts_only(join.p.expr, join.A, ["s", "o"]) is None
