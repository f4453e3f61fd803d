"""An OPTIONAL's side is computed only for the values its left side's rows give the
variables both bind in every row (``planner._left_join``: the seed), pushed down through
the patterns that keep those variables (BGP, join, nested OPTIONAL, UNION, MINUS, FILTER,
BIND) and joined on top of the others. Each case gives rdflib's answers, with the left rows
repeated, the optional's unbound values and the variables bound only in some rows."""
from __future__ import annotations

from collections import Counter

import pytest
from rdflib.plugins.sparql import prepareQuery

from reasonlake.query.dialects import polars_frames
from reasonlake.query.planner import _certain
from tests.query.small_graphs import ours, rdflibs

DATA = """@prefix ex: <http://ex/> .
ex:a100 a ex:Post, ex:Item . ex:a200 a ex:Post . ex:a1 a ex:Post . ex:a7 a ex:Note .
ex:a100 ex:discuss ex:b1, ex:b2 . ex:b1 ex:discuss ex:c . ex:b2 ex:discuss ex:c, ex:d .
ex:a1 ex:discuss ex:x . ex:a7 ex:discuss ex:b1 . ex:x ex:tag "x" . ex:b1 ex:tag "b1" .
ex:c ex:tag "c" . ex:a200 ex:cites ex:a1 . ex:b2 ex:score 3 . ex:b1 ex:score 12 .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"
QUERIES = {
    "nested optional": "SELECT ?a ?b ?c WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b OPTIONAL { ?b ex:discuss ?c } } }",
    # ?a twice on the left (two types): the optional's rows join each
    "left rows repeated": "SELECT ?a ?t ?b WHERE { ?a a ?t OPTIONAL { ?a ex:discuss ?b } }",
    "join in the side": "SELECT ?a ?b ?g WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b . ?b ex:tag ?g } }",
    "union in the side": "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { { ?a ex:discuss ?b } UNION { ?a ex:cites ?b } } }",
    # ?a only on one side of the UNION: not certain, so not seeded
    "union binding the key once": "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { { ?a ex:discuss ?b } UNION { ?b ex:tag 'c' } } }",
    "minus in the side": "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b MINUS { ?b ex:tag 'c' } } }",
    "filter in the side": "SELECT ?a ?b WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b . ?b ex:score ?s FILTER(?s > 5) } }",
    "bind in the side": "SELECT ?a ?b ?n WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b BIND(STR(?b) AS ?n) } }",
    "sub-query in the side": "SELECT ?a ?n WHERE { ?a a ex:Post OPTIONAL { SELECT ?a (COUNT(?b) AS ?n) "
                             "WHERE { ?a ex:discuss ?b } GROUP BY ?a } }",
    # ?b bound on the left only where its own OPTIONAL matched: not a seed
    "key unbound on the left": "SELECT ?a ?b ?g WHERE { ?a a ex:Post OPTIONAL { ?a ex:discuss ?b } "
                               "OPTIONAL { ?b ex:tag ?g } }",
    "optional side's own optional key": "SELECT ?a ?b ?g WHERE { ?a a ex:Post OPTIONAL { ?x ex:tag ?g "
                                        "OPTIONAL { ?a ex:discuss ?x } } }",
    "constant left": "SELECT ?b ?c WHERE { ex:a100 ex:discuss ?b OPTIONAL { ?b ex:discuss ?c } }",
}


@pytest.fixture(autouse=True)
def seeds_always(monkeypatch):
    """The driver seeds only past a share of the view's triples (``_SEED_SHARE``): every
    left side here is small, but so is the data, so the share is set to seed them all."""
    monkeypatch.setattr(polars_frames, "_SEED_SHARE", 1)


@pytest.mark.parametrize("query", QUERIES.values(), ids=QUERIES.keys())
def test_a_seeded_optional_answers_as_rdflib(query):
    found = ours(DATA, PREFIX + query)
    assert found == rdflibs(DATA, PREFIX + query) and sum(found.values()) > 0


def test_a_limited_sub_query_is_not_seeded():
    """A sub-query's LIMIT counts its own solutions, before the OPTIONAL joins them (18.6:
    bottom up): seeded first, it would keep ex:a100's two rows. rdflib evaluates the side
    once per left row, so the answer is written here."""
    query = ("SELECT ?a ?b WHERE { ?a a ex:Post FILTER(?a != ex:a1) OPTIONAL { SELECT ?a ?b WHERE "
             "{ ?a ex:discuss ?b } ORDER BY ?a ?b LIMIT 2 } }")
    # the sub-query's first two, in IRI order: (a1, x), (a100, b1)
    assert ours(DATA, PREFIX + query) == Counter({("<http://ex/a100>", "<http://ex/b1>"): 1, ("<http://ex/a200>", None): 1})


def _where(query: str):
    return prepareQuery(PREFIX + query).algebra.p.p  # under the SELECT's projection


@pytest.mark.parametrize("query, certain", [
    ("SELECT * WHERE { ?a ex:discuss ?b OPTIONAL { ?b ex:tag ?g } }", {"a", "b"}),
    ("SELECT * WHERE { { ?a ex:discuss ?b } UNION { ?a ex:tag ?g } }", {"a"}),
    ("SELECT * WHERE { ?a ex:discuss ?b BIND(STR(?b) AS ?n) }", {"a", "b"}),
    ("SELECT * WHERE { ?a ex:discuss ?b MINUS { ?b ex:tag ?g } }", {"a", "b"}),
    ("SELECT * WHERE { VALUES ?a { ex:a1 } }", set()),
])
def test_certain_variables_are_those_every_solution_binds(query, certain):
    assert _certain(_where(query)) == certain


SPARK_CASES = ["nested optional", "left rows repeated", "minus in the side", "constant left"]


@pytest.mark.parametrize("limit", [250_000, 0], ids=["seed broadcast", "seed shuffled"])
def test_a_seeded_optional_on_spark_answers_as_rdflib_broadcast_or_not(spark, monkeypatch, limit):
    """Spark's seed is marked to be broadcast when its left rows are few
    (``SparkFrames.seed``); marked or not, the answers are rdflib's."""
    from reasonlake.query.dialects import spark_frames
    from tests.query.small_graphs import on_spark

    monkeypatch.setattr(spark_frames, "SEED_BROADCAST_ROWS", limit)
    for name in SPARK_CASES:
        found = on_spark(spark, DATA, PREFIX + QUERIES[name])
        assert found == rdflibs(DATA, PREFIX + QUERIES[name]) and sum(found.values()) > 0, name


def test_spark_marks_a_seed_of_few_left_rows_to_be_broadcast(spark, monkeypatch):
    from reasonlake.query.dialects import spark_frames

    frames = spark_frames.SparkFrames(spark)
    rows = frames.numbered(spark.createDataFrame([(f"<http://ex/a{i}>",) for i in range(5)],
                                                 f"{spark_frames._physical('a')} string"), "$row")

    def hinted(seed) -> bool:
        return "broadcast" in seed._jdf.queryExecution().analyzed().toString().lower()

    assert hinted(frames.seed(rows, ["a"], None))
    monkeypatch.setattr(spark_frames, "SEED_BROADCAST_ROWS", 4)
    assert not hinted(frames.seed(rows, ["a"], None))
