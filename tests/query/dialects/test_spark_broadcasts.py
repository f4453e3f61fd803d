"""Spark broadcasts the few rows it has counted to the join that reads them (decision 0066):
a basic graph pattern's filtered start (``SparkFrames.held``) and a path's new pairs of a
round (``SparkFrames.fixpoint``); past ``SEED_BROADCAST_ROWS`` it leaves the join to its
plan. Spark's own size-based broadcast is off here, so only the hint can broadcast."""
from __future__ import annotations

import pytest

from reasonlake.query.dialects import spark_frames
from reasonlake.query.dialects.spark_frames import SparkFrames
from reasonlake.engine.store.session import settings_for_a_while
from tests.query.small_graphs import on_spark, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a7 ex:discuss ex:b1 . ex:b1 ex:discuss ex:c7 . ex:c7 ex:discuss ex:d . ex:a2 ex:discuss ex:b1 .
ex:a17 ex:discuss ex:a2 . ex:b1 a ex:Post . ex:c7 a ex:Post . ex:d a ex:Note .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
NO_SIZE_BROADCAST = {"spark.sql.autoBroadcastJoinThreshold": "-1",
                     "spark.sql.adaptive.autoBroadcastJoinThreshold": "-1"}


def _joined_plan(spark) -> str:
    frames = SparkFrames(spark)
    start, _ = frames.held(spark.createDataFrame([("<a>", "<b>")], "s string, o string"))
    other = spark.createDataFrame([("<b>", "<c>")], "o string, t string")
    with settings_for_a_while(spark, NO_SIZE_BROADCAST):
        joined = start.join(other, "o")
        return joined._jdf.queryExecution().executedPlan().toString()


def test_a_filtered_start_of_few_rows_is_broadcast(spark):
    assert "BroadcastHashJoin" in _joined_plan(spark)


def test_a_start_past_the_limit_is_left_to_the_plan(spark, monkeypatch):
    monkeypatch.setattr(spark_frames, "SEED_BROADCAST_ROWS", 0)
    assert "BroadcastHashJoin" not in _joined_plan(spark)


@pytest.mark.parametrize("query", [
    "SELECT ?a ?b ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c . ?c a ex:Post FILTER(STRENDS(STR(?a), '7')) }",
    "SELECT ?a ?b WHERE { ?a ex:discuss+ ?b FILTER(STRENDS(STR(?a), '7')) }",
])
def test_the_broadcast_answers_are_rdflibs(spark, monkeypatch, query):
    broadcasts = []
    original = spark_frames.F.broadcast

    def counted(frame):
        broadcasts.append(frame)
        return original(frame)

    monkeypatch.setattr(spark_frames.F, "broadcast", counted)
    with settings_for_a_while(spark, NO_SIZE_BROADCAST):
        found = on_spark(spark, DATA, PREFIX + query)
    assert found == rdflibs(DATA, PREFIX + query) and sum(found.values()) > 0
    assert broadcasts


def test_held_rows_say_whether_they_are_few(spark, monkeypatch):
    frames = SparkFrames(spark)
    rows = spark.createDataFrame([("<a>", "<b>")], "s string, o string")
    assert frames.held(rows)[1] is True
    monkeypatch.setattr(spark_frames, "SEED_BROADCAST_ROWS", 0)
    assert frames.held(rows)[1] is False


@pytest.mark.parametrize("bound, holds", [(None, 2), (0, 1)])
def test_a_join_of_few_rows_is_held_for_the_next(spark, monkeypatch, bound, holds):
    """The filtered start's join with the second pattern is held while its rows are few
    (decision 0067), and only then; the answers stay rdflib's either way."""
    if bound is not None:
        monkeypatch.setattr(spark_frames, "SEED_BROADCAST_ROWS", bound)
    calls = []
    original = SparkFrames.held

    def counted(self, frame):
        calls.append(frame)
        return original(self, frame)

    monkeypatch.setattr(SparkFrames, "held", counted)
    query = PREFIX + ("SELECT ?a ?b ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c . ?c a ex:Post "
                      "FILTER(STRENDS(STR(?a), '7')) }")
    found = on_spark(spark, DATA, query)
    assert found == rdflibs(DATA, query) and sum(found.values()) > 0
    assert len(calls) == holds
