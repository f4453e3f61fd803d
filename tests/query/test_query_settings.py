"""Spark answers a query with ``query_read.QUERY_SETTINGS`` (a shuffle's partitions merged into
no fewer than the session's cores, decision 0066) and gives the session its own settings back
afterwards, also when the query fails; the driver's dialect leaves the session alone."""
from __future__ import annotations

import pytest

from reasonlake import query
from reasonlake.engine.reads import query_read
from reasonlake.query.dialects.spark_frames import SparkFrames
from reasonlake.errors import SparqlError

KEY = "spark.sql.adaptive.coalescePartitions.parallelismFirst"


def _seen(monkeypatch, spark, fails=False):
    seen = []

    def run(*args, **kwargs):
        seen.append(spark.conf.get(KEY))
        if fails:
            raise SparqlError("a query that fails")
        return "answered"

    monkeypatch.setattr(query, "run", run)
    return seen


def test_spark_answers_with_the_query_settings_then_restores_the_sessions(spark, monkeypatch):
    before = spark.conf.get(KEY)
    assert before != query_read.QUERY_SETTINGS[KEY]  # the session's own (``session._EMBEDDED_CONF``)
    seen = _seen(monkeypatch, spark)
    triples = query_read.ViewTriples(spark.createDataFrame([("<s>", "<p>", "<o>")], "subject string, predicate string, object string"),
                                     SparkFrames(spark))
    assert triples.answer("SELECT * WHERE { ?s ?p ?o }") == "answered"
    assert seen == [query_read.QUERY_SETTINGS[KEY]] and spark.conf.get(KEY) == before
    _seen(monkeypatch, spark, fails=True)
    with pytest.raises(SparqlError):
        triples.answer("SELECT * WHERE { ?s ?p ?o }")
    assert spark.conf.get(KEY) == before


def test_the_driver_leaves_the_session_alone(spark, monkeypatch):
    import polars as pl

    before = spark.conf.get(KEY)
    seen = _seen(monkeypatch, spark)
    triples = query_read.ViewTriples(pl.DataFrame({"subject": ["<s>"], "predicate": ["<p>"], "object": ["<o>"]}))
    assert triples.answer("SELECT * WHERE { ?s ?p ?o }") == "answered"
    assert seen == [before]
