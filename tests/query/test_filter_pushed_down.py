"""A basic graph pattern's FILTER is split at ``&&`` and each condition applied to the one
triple pattern that binds what it reads, before the joins (``planner._pushed_down``); a
condition on a transitive path's start variable alone also narrows where the path's search
starts. Pushed, kept after the joins, or both: the answers are rdflib's, on both backends,
and the pushed cases still have rows to lose."""
from __future__ import annotations

import pytest

from tests.query.small_graphs import on_spark, ours, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a7 ex:discuss ex:b1 . ex:b1 ex:discuss ex:c7 . ex:c7 ex:discuss ex:d . ex:a2 ex:discuss ex:b1 .
ex:a17 ex:discuss ex:a2 . ex:b1 a ex:Post . ex:c7 a ex:Post . ex:d a ex:Note . ex:a7 ex:n 7 . ex:a2 ex:n 2 .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
QUERIES = [
    # pushed to the first pattern
    "SELECT ?a ?b ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c . ?c a ex:Post FILTER(STRENDS(STR(?a), '7')) }",
    # split: one condition pushed, one (across two patterns) kept after the joins
    "SELECT ?a ?b ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c FILTER(STRENDS(STR(?a), '7') && ?a != ?c) }",
    # a condition on two patterns' variables only: kept after the joins
    "SELECT ?a ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c FILTER(?a != ?c || ?b = ex:b1) }",
    # pushed to a literal's pattern, with an error (a non-number) failing it
    "SELECT ?a ?b WHERE { ?a ex:n ?n . ?a ex:discuss ?b FILTER(?n > 3 && isIRI(?b)) }",
    # a path's search started from the starts that pass, and its pairs filtered again
    "SELECT ?a ?b WHERE { ?a ex:discuss+ ?b FILTER(STRENDS(STR(?a), '7')) }",
    "SELECT ?a ?b WHERE { ?a ex:discuss* ?b FILTER(STRENDS(STR(?a), '7')) }",
    "SELECT ?a ?b WHERE { ?a ^ex:discuss+ ?b FILTER(STRENDS(STR(?a), '7')) }",
    "SELECT ?a ?b WHERE { ?a ex:discuss+ ?b FILTER(STRENDS(STR(?b), '7') && ?a != ex:a17) }",
    "SELECT ?a WHERE { ?a ex:discuss+ ?a FILTER(STRENDS(STR(?a), '7')) }",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_filter_pushed_down_answers_as_rdflib(query):
    found = ours(DATA, PREFIX + query)
    assert found == rdflibs(DATA, PREFIX + query)


def test_the_pushed_cases_keep_some_rows_and_lose_others():
    """Each pushed query has rows, and fewer than without its FILTER: the test can fail."""
    for query in QUERIES[:2] + QUERIES[4:6]:
        unfiltered = query.split(" FILTER")[0] + " }"
        kept, every = sum(ours(DATA, PREFIX + query).values()), sum(ours(DATA, PREFIX + unfiltered).values())
        assert 0 < kept < every, query


def test_a_filter_pushed_down_on_spark_gives_the_drivers_rows(spark):
    for query in QUERIES:
        assert on_spark(spark, DATA, PREFIX + query) == ours(DATA, PREFIX + query), query


def test_the_joins_start_from_the_filtered_pattern(monkeypatch):
    """rdflib orders a basic graph pattern's triples by their constants (``?c a ex:Post``
    first); the joins start from the pattern a FILTER was taken to instead (decision 0066),
    so every later join reads only the matches that passed."""
    from reasonlake.query import planner

    firsts = []
    original = planner.join

    def recorded(left, right, when=None):
        firsts.append(left.variables)
        return original(left, right, when)

    monkeypatch.setattr(planner, "join", recorded)
    assert sum(ours(DATA, PREFIX + QUERIES[0]).values()) > 0
    assert firsts[0] == ("a", "b")
    firsts.clear()
    unfiltered = QUERIES[0].split(" FILTER")[0] + " }"
    assert sum(ours(DATA, PREFIX + unfiltered).values()) > 0
    assert firsts[0] == ("c",)  # rdflib's order where nothing was taken to a pattern
