"""A HAVING, FILTER or BIND over a COUNT reads the count's integer value from the column the
group writes beside its term (``aggregates.integer_column``), not by parsing the term: the
answers are rdflib's for every comparison, either way round, against integers, decimals
and doubles, through a sub-query, and on Spark as in the driver."""
from __future__ import annotations

import pytest

from tests.query.small_graphs import on_spark, ours, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a1 ex:p ex:b0 . ex:a2 ex:p ex:b0 . ex:a3 ex:p ex:b0 . ex:a4 ex:p ex:b0 .
ex:a1 ex:p ex:b1 . ex:a2 ex:p ex:b1 . ex:a3 ex:p ex:b1 . ex:a5 ex:p ex:b2 . ex:a6 ex:q 3 .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
GROUPED = "SELECT ?b (COUNT(?a) AS ?n) WHERE { ?a ex:p ?b } GROUP BY ?b "
QUERIES = [
    GROUPED + "HAVING (COUNT(?a) > 2)",
    GROUPED + "HAVING (COUNT(?a) = 3)",
    GROUPED + "HAVING (COUNT(?a) != 3)",
    GROUPED + "HAVING (COUNT(?a) <= 3.0)",
    GROUPED + "HAVING (COUNT(?a) >= 3.5e0)",
    GROUPED + "HAVING (2 < COUNT(?a))",
    GROUPED + "HAVING (COUNT(DISTINCT ?a) > 1 && COUNT(?a) < 4)",
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ex:p ?b } HAVING (COUNT(*) >= 7)",
    "SELECT ?b ?m WHERE { { " + GROUPED + "} BIND(IF(?n >= 3, 'many', 'few') AS ?m) FILTER(?n > 0) }",
    "SELECT ?b ?n WHERE { { " + GROUPED + "} ?x ex:q ?v FILTER(?n = ?v) }",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_comparison_with_a_count_answers_as_rdflib(query):
    found = ours(DATA, PREFIX + query)
    assert found == rdflibs(DATA, PREFIX + query) and sum(found.values()) > 0


def test_a_comparison_with_a_count_on_spark_gives_the_drivers_rows(spark):
    for query in QUERIES:
        assert on_spark(spark, DATA, PREFIX + query) == ours(DATA, PREFIX + query), query
