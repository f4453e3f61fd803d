"""The string functions (17.4.3) take their arguments apart once (``Compiler.text``), and
not at all where the argument is a string by construction (STR, a constant): over simple,
language-tagged, escaped and typed literals, IRIs, blank nodes and unbound variables, each
argument compatibility rule of 17.4.3.1.1 gives rdflib's answers."""
from __future__ import annotations

import pytest

from tests.query.small_graphs import ours, rdflibs

DATA = r"""@prefix ex: <http://ex/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:v "cat" . ex:b ex:v "Cat"@en . ex:c ex:v "chat"@fr . ex:d ex:v "tab\tcat \"quoted\"" .
ex:e ex:v "7"^^xsd:integer . ex:f ex:v ex:cat7 . ex:g ex:v _:b1 . ex:h ex:v "caté\u00e9"@en-GB .
ex:i ex:v "" . ex:a ex:w "at"@en . ex:b ex:w "at"@en . ex:c ex:w "at" . ex:d ex:w "at"@fr .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
TESTS = [
    'CONTAINS(?v, "at")', 'CONTAINS(?v, "at"@en)', 'STRSTARTS(?v, "c")', 'STRENDS(?v, "t")',
    'CONTAINS(?v, ?w)', 'STRSTARTS(STR(?v), "http://ex/c")', 'STRENDS(STR(?s), "a")',
    'REGEX(?v, "^c")', 'REGEX(?v, "CAT", "i")', 'REGEX(STR(?v), "cat")', 'REGEX(?v, "\\t")',
    'STRLEN(?v) > 3', 'STRLEN(STR(?v)) = 3', 'UCASE(?v) = "CAT"', 'LCASE(?v) = "cat"@en',
    'CONTAINS(LCASE(?v), "cat")', 'CONTAINS(STR(?u), "a")', '!CONTAINS(?v, "a")', 'STRLEN(?v) = 1',
    'STRENDS(?v, "7")', 'STRLEN(?v) = 0', 'CONTAINS(?v, "\\"quo")', 'STRLEN(?v) = 16',
]


@pytest.mark.parametrize("test", TESTS)
def test_a_string_function_answers_as_rdflib(test):
    query = PREFIX + f"SELECT ?s ?v WHERE {{ ?s ex:v ?v OPTIONAL {{ ?s ex:w ?w }} FILTER({test}) }}"
    found = ours(DATA, query)
    assert found == rdflibs(DATA, query)


# an error for every row: an unbound argument, a typed literal where a string is asked
ERRORS = {'CONTAINS(STR(?u), "a")', 'STRLEN(?v) = 1', 'STRENDS(?v, "7")'}


@pytest.mark.parametrize("test", [t for t in TESTS if t not in ERRORS])
def test_a_string_function_has_answers(test):
    assert sum(ours(DATA, PREFIX + f"SELECT ?s WHERE {{ ?s ex:v ?v OPTIONAL {{ ?s ex:w ?w }} FILTER({test}) }}").values())
