"""Spark's backend of SPARQL (``query/dialects/spark_frames``, decision 0045) answers what rdflib
answers, and what the driver's backend answers, in the same order where ORDER BY sets one.

The generated graphs and queries are ``test_matches_rdflib``'s (another draw of the same
seed); the ordered and sliced shapes, which the generator leaves out, are written here and
held to the driver's answer row for row."""
from __future__ import annotations

import polars as pl
import pytest

from reasonlake.query import run
from reasonlake.query.terms import constant
from tests.query import generated
from tests.query.test_matches_rdflib import _seed, generated_cases

SPARK_QUERIES = 30


@pytest.fixture(scope="module")
def on_spark(spark):
    from reasonlake.query.dialects.spark_frames import SparkFrames

    frames = SparkFrames(spark)

    def answer(frame: pl.DataFrame, query: str):
        return run(spark.createDataFrame(frame.to_arrow()), query, frames)
    return answer


def test_generated_queries_on_spark_match_rdflib(on_spark):
    # the driver's suite draws its cases from the seed; these are the next draw of it
    assert generated_cases(_seed() + 1, SPARK_QUERIES, on_spark) >= SPARK_QUERIES * 0.9


EX = generated.EX
GRAPH = pl.DataFrame(
    [(f"<{EX}n{i}>", f"<{EX}value>", constant(generated.Literal(v)))
     for i, v in enumerate([3, 1, 4, 1, 5, 9, 2, 6])]
    + [(f"<{EX}n{i}>", f"<{EX}next>", f"<{EX}n{i + 1}>") for i in range(7)]
    + [(f"<{EX}n{i}>", f"<{EX}label>", constant(generated.Literal(t))) for i, t in enumerate("bacab")],
    schema={"subject": pl.String, "predicate": pl.String, "object": pl.String}, orient="row")
P = f"PREFIX ex: <{EX}> "
ORDERED = [
    # DISTINCT after ORDER BY keeps the order, LIMIT takes its first rows
    P + "SELECT DISTINCT ?v WHERE { ?n ex:value ?v } ORDER BY DESC(?v) LIMIT 4",
    P + "SELECT ?n ?v WHERE { ?n ex:value ?v } ORDER BY ?v ?n OFFSET 2 LIMIT 3",
    P + "SELECT ?n ?l WHERE { ?n ex:value ?v OPTIONAL { ?n ex:label ?l } } ORDER BY ?l DESC(?n)",
    P + "SELECT ?l (COUNT(*) AS ?c) (SUM(?v) AS ?s) WHERE { ?n ex:label ?l ; ex:value ?v } GROUP BY ?l "
        "HAVING (COUNT(*) > 1) ORDER BY DESC(?c) ?l",
    # a sub-query's LIMIT is its own: its first rows by its order, joined
    P + "SELECT ?n ?m WHERE { { SELECT ?n WHERE { ?n ex:value ?v } ORDER BY DESC(?v) LIMIT 3 } ?n ex:next ?m } "
        "ORDER BY ?n",
    P + "SELECT ?b WHERE { ex:n2 ex:next+ ?b } ORDER BY ?b",
    P + "SELECT ?a WHERE { ?a ex:next* ex:n3 } ORDER BY ?a",
    P + "SELECT ?n ?double WHERE { ?n ex:value ?v FILTER NOT EXISTS { ?n ex:label ?l } "
        "BIND(?v * 2.5 AS ?double) } ORDER BY ?double",
    P + "SELECT (COUNT(*) AS ?none) (AVG(?v) AS ?avg) WHERE { ?n ex:missing ?v }",
    P + "SELECT ?n WHERE { VALUES ?n { ex:n1 ex:n7 ex:n9 } ?n ex:value ?v } ORDER BY ?n",
]


@pytest.mark.parametrize("query", ORDERED)
def test_ordered_and_sliced_queries_give_the_drivers_rows_in_its_order(on_spark, query):
    driver, spark = run(GRAPH, query), on_spark(GRAPH, query)
    assert spark.variables == driver.variables
    assert driver.frame.height > 0
    assert spark.frame.rows() == driver.frame.rows()


@pytest.mark.parametrize("query,holds", [
    ("ASK { ex:n0 ex:next+ ex:n7 }", True), ("ASK { ex:n7 ex:next ?x }", False),
    # patterns of constants only: a row per match, none without one
    ("ASK { ex:n0 ex:next ex:n1 }", True), ("ASK { ex:n0 ex:next ex:n2 }", False),
    ("ASK { ex:n0 ex:next ex:n1 . ex:n1 ex:next+ ex:n7 }", True)])
def test_ask_on_both_backends(on_spark, query, holds):
    assert on_spark(GRAPH, P + query).boolean is run(GRAPH, P + query).boolean is holds


def test_a_pattern_of_constants_counts_once_per_solution_on_both_backends(on_spark):
    query = P + "SELECT (COUNT(*) AS ?c) WHERE { ex:n0 ex:next ex:n1 . ?a ex:next ?b }"
    assert on_spark(GRAPH, query).frame.rows() == run(GRAPH, query).frame.rows() == [
        ('"7"^^<http://www.w3.org/2001/XMLSchema#integer>',)]


def test_construct_on_spark(on_spark):
    query = P + "CONSTRUCT { ?b ex:after ?a . ?a ex:kind [ ex:of ?v ] } WHERE { ?a ex:next ?b ; ex:value ?v }"
    built, expected = on_spark(GRAPH, query).triples, run(GRAPH, query).triples
    assert len(built) == len(expected) == 3 * 7  # a blank node of the template is new per solution
    assert [t for t in built if "_:" not in t] == [t for t in expected if "_:" not in t]
