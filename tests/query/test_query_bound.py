"""A query's bound (``query.bound``, decision 0070): a join, a property path's pairs and the
answer stop past ``REASONLAKE_QUERY_MAX_ROWS`` rows or ``REASONLAKE_QUERY_MAX_MB`` MB with one
``QueryBoundError`` (RL196) naming the bound and how to raise it, before the rows are made;
a query within the bound is answered as before. The driver's dialect over a Polars frame,
and Spark's over the session's (the cross product stopped before it runs, the answer
collected one row past the bound at most)."""
from __future__ import annotations

import time

import polars as pl
import pytest

from reasonlake.errors import UsageError
from reasonlake.query import run
from reasonlake.query.bound import Bound, QueryBoundError

EX = "http://example.org/"
CROSS = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def _triples(n: int, predicates: int = 1) -> pl.DataFrame:
    """``n`` triples: ex:p{i} ex:q{i % predicates} ex:p{7i mod n} (no two alike)."""
    return pl.DataFrame({"subject": [f"<{EX}p{i}>" for i in range(n)],
                         "predicate": [f"<{EX}q{i % predicates}>" for i in range(n)],
                         "object": [f"<{EX}p{(i * 7) % n}>" for i in range(n)]})


def _fails(triples, text: str, bound: Bound | None = None, frames=None) -> str:
    with pytest.raises(QueryBoundError) as err:
        run(triples, text, frames, distinct=True, bound=bound)
    assert err.value.code == "RL196" and err.value.exit_code == 1 and "\n" not in str(err.value)
    return str(err.value)


def test_the_cross_product_of_three_patterns_stops_before_its_rows_are_made():
    triples = _triples(4000)
    started = time.perf_counter()
    said = _fails(triples, CROSS)
    assert time.perf_counter() - started < 10  # 0.04 s measured: the counts multiply, no row is made
    assert "the join of {?a ?b ?c} (4,000 rows) and {?d ?e ?f} (4,000 rows), which share no variable" in said
    assert "16,000,000 rows, past its bound of 10,000,000 rows" in said
    assert "REASONLAKE_QUERY_MAX_ROWS=N" in said and "--max-rows N" in said


def test_an_equi_join_that_multiplies_stops_one_row_past_the_bound():
    """Every pattern shares the one predicate: the join is made by the streaming engine under a
    limit, which stops it there (the in-memory engine aborted the process allocating 16M rows)."""
    said = _fails(_triples(4000), "SELECT * WHERE { ?a ?p ?c . ?d ?p ?f }", Bound(100_000, 2048))
    assert "on ?p: more than 100,000 rows, past its bound of 100,000 rows" in said


def test_the_setting_lowers_and_raises_the_bound(monkeypatch):
    triples = _triples(300)
    two = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }"  # 90,000 rows
    assert run(triples, two, distinct=True).frame.height == 90_000
    monkeypatch.setenv("REASONLAKE_QUERY_MAX_ROWS", "50000")
    assert "past its bound of 50,000 rows" in _fails(triples, two)
    monkeypatch.setenv("REASONLAKE_QUERY_MAX_ROWS", "100000")
    assert run(triples, two, distinct=True).frame.height == 90_000
    # the memory bound: the same join's rows at some 100 bytes each, past a tenth of a MB
    monkeypatch.setenv("REASONLAKE_QUERY_MAX_MB", "0.1")
    said = _fails(triples, two)
    assert "MB, past its bound of 0.1 MB (REASONLAKE_QUERY_MAX_MB" in said and "--max-mb N" in said
    monkeypatch.setenv("REASONLAKE_QUERY_MAX_MB", "lots")
    with pytest.raises(UsageError, match="REASONLAKE_QUERY_MAX_MB='lots': give a positive number"):
        run(triples, two, distinct=True)


def test_a_query_within_the_bound_is_answered_as_before():
    triples = _triples(40, predicates=4)
    text = f"SELECT ?a ?c WHERE {{ ?a <{EX}q1> ?b . ?b ?p ?c }} ORDER BY ?a ?c"
    tight = run(triples, text, distinct=True, bound=Bound(11, 1))  # its join and answer: 10 rows each
    loose = run(triples, text, distinct=True, bound=Bound(10**9, 10**6))
    assert tight.frame.height == 10 and tight.frame.equals(loose.frame)
    assert _fails(triples, text, Bound(9, 1)).startswith("the query stopped at the join of {?a ?b} (10 rows)")


def test_a_paths_pairs_and_the_answer_are_bounded():
    chain = pl.DataFrame({"subject": [f"<{EX}n{i}>" for i in range(100)], "predicate": [f"<{EX}next>"] * 100,
                          "object": [f"<{EX}n{i + 1}>" for i in range(100)]})
    path = f"SELECT * WHERE {{ ?x <{EX}next>+ ?y }}"  # 5,050 pairs
    assert run(chain, path, distinct=True).frame.height == 5050
    assert "the query stopped at a property path's pairs" in _fails(chain, path, Bound(3000, 2048))
    union = f"SELECT * WHERE {{ {{ ?x <{EX}next> ?y }} UNION {{ ?y <{EX}next> ?x }} }}"  # 200 rows, no join
    assert "the query stopped at the answer: more than 150 rows" in _fails(chain, union, Bound(150, 2048))


def test_spark_stops_a_cross_product_before_it_runs_and_caps_the_answer(spark):
    """(Ordered answers under the collect's limit: ``test_spark_backend``'s ordered queries.)"""
    from reasonlake.query.dialects.spark_frames import SparkFrames

    frames = SparkFrames(spark)
    triples = spark.createDataFrame(_triples(2000).to_arrow())
    said = _fails(triples, CROSS, Bound(1_000_000, 2048), frames)
    assert "the join of {?a ?b ?c} (2,000 rows) and {?d ?e ?f} (2,000 rows), which share no variable: " \
           "4,000,000 rows, past its bound of 1,000,000 rows" in said
    assert "past its bound of 1,000 rows" in _fails(triples, "SELECT * WHERE { ?s ?p ?o }", Bound(1000, 2048), frames)
