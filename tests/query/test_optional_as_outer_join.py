"""An OPTIONAL without a condition whose two sides share only variables bound in every row
of both is the dialect's left outer join (``solutions._outer_joined``, decision 0066); any
other OPTIONAL keeps the numbered rows and the second pass for the left rows alone. Each
case gives rdflib's answers on both dialects, and each takes the path it should."""
from __future__ import annotations

import pytest

from reasonlake.query import solutions
from tests.query.small_graphs import on_spark, ours, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a100 a ex:Post, ex:Item . ex:a200 a ex:Post . ex:a1 a ex:Post . ex:a7 a ex:Note .
ex:a100 ex:discuss ex:b1, ex:b2 . ex:b1 ex:discuss ex:c . ex:b2 ex:discuss ex:c, ex:d .
ex:a1 ex:discuss ex:x . ex:a7 ex:discuss ex:b1 . ex:x ex:tag "x" . ex:b1 ex:tag "b1" .
ex:c ex:tag "c" . ex:b2 ex:score 3 . ex:b1 ex:score 12 .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
OUTER = {
    # two levels; left rows with no match, with one and with several
    "nested": "SELECT ?a ?b ?c WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b OPTIONAL { ?b ex:discuss ?c } } }",
    # ex:a100 twice on the left (two types): each of its rows joins each match
    "left rows repeated": "SELECT ?a ?t ?b WHERE { ?a a ?t OPTIONAL { ?a ex:discuss ?b } }",
    "two shared variables": "SELECT ?a ?b ?g WHERE { ?a ex:discuss ?b OPTIONAL { ?a ex:discuss ?b . ?b ex:tag ?g } }",
    "no match at all": "SELECT ?a ?g WHERE { ?a a ex:Post OPTIONAL { ?a ex:nothing ?g } }",
}
# each with the variables of the OPTIONAL side that must not be outer-joined
NOT_OUTER = {
    # ?b is bound on the left only where the first OPTIONAL matched
    "shared variable maybe unbound": ("SELECT ?a ?b ?g WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } "
                                      "OPTIONAL { ?b ex:tag ?g } }", {"b", "g"}),
    # the OPTIONAL's own FILTER reads both sides: a condition on the pairs
    "condition": ("SELECT ?a ?b ?s WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b . ?b ex:score ?s "
                  "FILTER(?s > 5 && ?a != ex:a1) } }", {"a", "b", "s"}),
    # nothing shared: every left row with every right row
    "nothing shared": ("SELECT ?a ?g WHERE { ?a a ex:Note OPTIONAL { ?x ex:tag ?g } }", {"x", "g"}),
}


@pytest.fixture
def outer_joins(monkeypatch):
    taken = []
    original = solutions._outer_joined

    def counted(left, right):
        taken.append(set(right.variables))
        return original(left, right)

    monkeypatch.setattr(solutions, "_outer_joined", counted)
    return taken


@pytest.mark.parametrize("query", OUTER.values(), ids=OUTER.keys())
def test_an_optional_on_bound_variables_is_an_outer_join(query, outer_joins):
    expected = rdflibs(DATA, PREFIX + query)
    assert ours(DATA, PREFIX + query) == expected and sum(expected.values()) > 0
    assert outer_joins


@pytest.mark.parametrize("query, side", NOT_OUTER.values(), ids=NOT_OUTER.keys())
def test_any_other_optional_keeps_the_left_rows_pass(query, side, outer_joins):
    expected = rdflibs(DATA, PREFIX + query)
    assert ours(DATA, PREFIX + query) == expected and sum(expected.values()) > 0
    assert side not in outer_joins


def test_spark_answers_the_same(spark, outer_joins):
    for query in (*OUTER.values(), *(query for query, _ in NOT_OUTER.values())):
        assert on_spark(spark, DATA, PREFIX + query) == rdflibs(DATA, PREFIX + query), query
    assert outer_joins
