"""Comparisons with a numeric constant, on either side (``expressions._compare_number``):
over numbers of several types (and integers past 2**53) they answer as rdflib does; over
strings, IRIs and an ill-typed number, where rdflib compares literals of different types
(``tests/query/generated``), they answer as the general comparison does."""
from __future__ import annotations

from collections import Counter

import pytest
import rdflib

from reasonlake.query import expressions, run
from tests.query.small_graphs import ours, rdflibs, triples_of

NUMBERS = """@prefix ex: <http://ex/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:n 1 . ex:b ex:n 2 . ex:c ex:n 2.5 . ex:d ex:n "2"^^xsd:decimal . ex:e ex:n 3.0e0 .
ex:h ex:n "9223372036854775807"^^xsd:integer . ex:i ex:n "9223372036854775806"^^xsd:integer .
"""
OTHERS = """@prefix ex: <http://ex/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:f ex:n "2" . ex:g ex:n ex:two . ex:j ex:n "x"^^xsd:integer . ex:k ex:n "2"@en .
"""
PREFIX = "PREFIX ex: <http://ex/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
FILTERS = ["?n > 2", "2 < ?n", "?n >= 2", "2 >= ?n", "?n = 2", "2 = ?n", "?n != 2", '?n = "2"^^xsd:decimal',
           "?n < 2.5", "?n = 9223372036854775807", "9223372036854775806 < ?n"]


@pytest.mark.parametrize("condition", FILTERS)
def test_a_comparison_with_a_number_answers_as_rdflib_and_as_the_general_comparison(condition, monkeypatch):
    query = PREFIX + f"SELECT ?s WHERE {{ ?s ex:n ?n FILTER({condition}) }}"
    found = ours(NUMBERS, query)
    assert found == rdflibs(NUMBERS, query) and sum(found.values()) > 0
    every = triples_of(rdflib.Graph().parse(data=NUMBERS + OTHERS, format="turtle"))
    fast = Counter(run(every, query).frame.rows())
    monkeypatch.setattr(expressions, "_constant_number", lambda constant: None)
    assert fast == Counter(run(every, query).frame.rows())
