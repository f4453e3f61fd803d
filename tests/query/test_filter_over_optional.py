"""A group's FILTER over its OPTIONAL is applied to the optional's left side first when the
left side binds its variables in every row (``planner._Filter``), and after the join
otherwise: both give rdflib's answers, with the OPTIONAL's rows and unbound values."""
from __future__ import annotations

import pytest

from tests.query.small_graphs import ours, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a100 a ex:Post . ex:a200 a ex:Post . ex:a1 a ex:Post . ex:a7 a ex:Note .
ex:a100 ex:discuss ex:b1 . ex:b1 ex:discuss ex:c . ex:a1 ex:discuss ex:x . ex:a7 ex:discuss ex:b1 .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
QUERIES = [
    # pushed: ?a is bound by the left side in every row
    "SELECT ?a ?b ?c WHERE { ?a a ex:Post FILTER(STRENDS(STR(?a), '00')) "
    "OPTIONAL { ?a ex:discuss ?b OPTIONAL { ?b ex:discuss ?c } } }",
    "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } FILTER(?a != ex:a200) }",
    # not pushed: the filter reads the optional side's variable (bound or not)
    "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } FILTER(!BOUND(?b)) }",
    "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } FILTER(?a != ex:a1 && !BOUND(?b)) }",
    "SELECT ?a ?b WHERE { ?a ?p ?t OPTIONAL { ?a ex:discuss ?b } FILTER(?b = ex:b1 || ?t = ex:Note) }",
    # not pushed: EXISTS reads a pattern
    "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } FILTER EXISTS { ?b ex:discuss ?c } }",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_filter_over_optional_answers_as_rdflib(query):
    found = ours(DATA, PREFIX + query)
    assert found == rdflibs(DATA, PREFIX + query) and sum(found.values()) > 0
