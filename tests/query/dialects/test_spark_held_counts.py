"""Spark's held frames are counted by the job that holds them (decision 0067): a count asked
after would be two jobs of its own, and a plan counts its held frames to decide its
broadcasts (``SparkFrames.held``, ``seed``, ``fixpoint``). A transitive path's closure is a
set as its rounds find it, with no distinct of the whole after."""
from __future__ import annotations

import pytest

from reasonlake.query.dialects import spark_frames
from reasonlake.query.dialects.spark_frames import SparkFrames
from tests.query.small_graphs import on_spark, ours, rdflibs


def _jobs_of(spark, group: str) -> list[int]:
    return list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


def test_a_held_frame_is_counted_by_the_job_that_holds_it(spark):
    frames = SparkFrames(spark)
    held = frames.kept(spark.createDataFrame([("<a>",), ("<b>",), ("<c>",)], "s string"))
    spark.sparkContext.setJobGroup("held-count", "the count of a held frame")
    try:
        rows = spark_frames._rows(held)
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert rows == 3
    assert _jobs_of(spark, "held-count") == []


def test_a_frame_not_held_here_is_counted_by_spark(spark):
    assert spark_frames._rows(spark.createDataFrame([("<a>",), ("<b>",)], "s string")) == 2


def test_a_held_frame_is_kept_as_it_is(spark):
    frames = SparkFrames(spark)
    held = frames.kept(spark.createDataFrame([("<a>",)], "s string"))
    assert frames.kept(held) is held


# a diamond (a reaches d twice in one round), a cycle (b and e reach themselves), a tail
DATA = """@prefix ex: <http://ex/> .
ex:a ex:p ex:b . ex:a ex:p ex:c . ex:b ex:p ex:d . ex:c ex:p ex:d . ex:d ex:p ex:e . ex:e ex:p ex:b .
ex:e ex:p ex:f . ex:f ex:q ex:g .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"


@pytest.mark.parametrize("query", [
    "SELECT ?x ?y WHERE { ?x ex:p+ ?y }",
    "SELECT ?x ?y WHERE { ?x ex:p+ ?y FILTER(STRENDS(STR(?x), 'a')) }",
    "SELECT ?y WHERE { ex:a ex:p+ ?y }",
    "SELECT ?x WHERE { ?x ex:p+ ex:d }",
    "SELECT ?x ?y WHERE { ?x (ex:p|ex:q)+ ?y }",
    "SELECT ?x ?y WHERE { ?x ^ex:p+ ?y }",
])
def test_a_closure_is_a_set_on_both_backends(spark, query):
    expected = rdflibs(DATA, PREFIX + query)
    assert sum(expected.values()) > 0 and max(expected.values()) == 1
    assert ours(DATA, PREFIX + query) == expected
    assert on_spark(spark, DATA, PREFIX + query) == expected


def test_a_long_chain_is_closed_on_both_backends(spark):
    """More rounds than a fixpoint reads apart (``_ROUNDS_HELD_APART``): its rounds are held as
    one on the way, and the closure stays the set of every pair."""
    chain = "@prefix ex: <http://ex/> .\n" + "".join(f"ex:n{i} ex:p ex:n{i + 1} .\n" for i in range(20))
    query = PREFIX + "SELECT ?x ?y WHERE { ?x ex:p+ ?y FILTER(?x = ex:n0) }"
    expected = rdflibs(chain, query)
    assert sum(expected.values()) == 20
    assert on_spark(spark, chain, query) == expected == ours(chain, query)


def test_a_held_start_marked_for_broadcast_is_not_copied_again(spark):
    frames = SparkFrames(spark)
    marked, few = frames.held(spark.createDataFrame([("<a>",)], "s string"))
    assert few and frames.kept(marked) is marked
