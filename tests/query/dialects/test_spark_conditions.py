"""FILTER conditions Spark decides with its own expressions (``query/dialects/spark_conditions``,
decision 0055) give the rows rdflib's engine gives, over terms that hold escapes (decided
by the Polars step instead), language tags, datatypes, unbound variables and counts."""
from __future__ import annotations

from collections import Counter

import polars as pl
import pytest
import rdflib
from pyspark.sql import functions as F
from rdflib.plugins.sparql import prepareQuery

from reasonlake.query.dialects import spark_conditions
from reasonlake.query.dialects.spark_frames import SparkFrames, _physical
from reasonlake.query.expressions import Compiler
from reasonlake.query.planner import _filtered
from reasonlake.query.terms import constant
from tests.query.small_graphs import on_spark

TURTLE = r'''
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:s7 ex:p "abc7", "abc"@en, "ab\"c7", "two\nlines 7", "back\\slash7"@en, ex:o17, 7, "7"^^xsd:string .
ex:s00 ex:p "xbc"@fr, ex:x, ex:y, "abc"@en-GB, "é7" .
ex:t ex:p ex:s7, ex:s00, "7"^^xsd:integer .
ex:s7 ex:next ex:t .
ex:o17 ex:next ex:s00 .
'''

CONDITIONS = [
    'STRENDS(STR(?s), "7")',
    'STRENDS(STR(?o), "7")',
    'STRSTARTS(STR(?o), "ab")',
    'CONTAINS(?o, "b")',
    'STRENDS(?o, "c"@en)',
    'STRENDS(?o, "c"@fr)',
    'STRENDS(?o, "7"^^xsd:string)',
    'CONTAINS(STR(?o), "\\\\")',
    # an IRI's text tested as written, brackets and all (decision 0066); a constant with a
    # bracket, or the empty one, at the edges of that
    'STRSTARTS(STR(?o), "http://example.org/o")',
    'STRENDS(STR(?s), "s00") || CONTAINS(STR(?n), "org/s")',
    'STRENDS(STR(?o), "") && STRSTARTS(STR(?o), "")',
    # (true of the IRI's text as written, false of its value: no row passes)
    'STRENDS(STR(?o), "<http://example.org/x") || STRSTARTS(STR(?o), "http://example.org/x>")',
    'isIRI(?o) && !isLITERAL(?s)',
    'isLITERAL(?o) || isBLANK(?o)',
    '?o = ex:x || ?o != ex:y',
    'ex:x = ?o',
    '?o IN (ex:x, ex:s7)',
    '?o NOT IN (ex:x, ex:s7)',
    'sameTerm(?o, ex:s00) || STRSTARTS(STR(?o), "two")',
    '!BOUND(?n) || STRENDS(STR(?n), "0")',
    'BOUND(?n) && ?n != ex:t',
    '!(STRSTARTS(STR(?o), "a") && STRENDS(STR(?s), "7"))',
]


def query(condition: str) -> str:
    return ("PREFIX ex: <http://example.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
            f"SELECT ?s ?o ?n WHERE {{ ?s ex:p ?o OPTIONAL {{ ?o ex:next ?n }} FILTER({condition}) }}")


def rdflibs(text: str) -> Counter:
    graph = rdflib.Graph().parse(data=TURTLE, format="turtle")
    return Counter(tuple(None if v is None else constant(v) for v in row) for row in graph.query(text))


def _filter_expr(text: str):
    node = prepareQuery(text).algebra
    while node.name != "Filter":
        node = node.p
    return node.expr


@pytest.fixture(scope="module")
def unfiltered(spark):
    """The query's solutions before its FILTER (rdflib's), as a Spark frame of N-Triples
    text as the view holds it (a line break escaped)."""
    rows = [tuple(None if v is None else constant(v) for v in row)
            for row in rdflib.Graph().parse(data=TURTLE, format="turtle").query(query("true"))]
    frame = pl.DataFrame(rows, schema={"s": pl.String, "o": pl.String, "n": pl.String}, orient="row")
    return SparkFrames(spark).constant({c: frame[c].to_list() for c in frame.columns}, dict(frame.schema))


@pytest.mark.parametrize("condition", CONDITIONS)
def test_spark_decides_the_condition_as_rdflib_does(spark, unfiltered, condition):
    expr = _filter_expr(query(condition))
    # translated, not left to the Polars step: else this test would prove nothing of it
    found = spark_conditions.condition(expr, ["s", "o", "n"], _physical)
    assert found is not None
    expected = rdflibs(query(condition))
    # on the rows it decides (no escape), Spark's expression alone gives rdflib's answer ...
    frames = SparkFrames(spark)
    decided = Counter(frames.collect(unfiltered.where(found.decided)).select("s", "o", "n").rows())
    alone = frames.collect(unfiltered.where(found.decided & F.coalesce(found.truth, F.lit(False))))
    assert Counter(alone.select("s", "o", "n").rows()) == Counter({r: k for r, k in expected.items() if r in decided})
    # ... and with the Polars step for the others, every row
    compiler = Compiler(["s", "o", "n"])
    truth = compiler.truth(expr)  # first: it makes the hidden columns the step prepares
    step = _filtered(list(compiler.prepared), truth, compiler.names)
    kept = frames.collect(frames.filtered(unfiltered, step, expr, ["s", "o", "n"], {}))
    assert Counter(kept.select("s", "o", "n").rows()) == expected


@pytest.mark.parametrize("having", ["COUNT(?o) > 2", "COUNT(?o) = 3", "2 < COUNT(?o)", "COUNT(?o) != 3",
                                    "COUNT(?o) <= 3 && COUNT(?o) >= 3"])
def test_spark_compares_counts_as_rdflib_does(spark, having):
    text = ("PREFIX ex: <http://example.org/> "
            f"SELECT ?s (COUNT(?o) AS ?n) WHERE {{ ?s ex:p ?o }} GROUP BY ?s HAVING ({having})")
    # counts only: the graph's terms as rdflib writes them are the same answers
    assert on_spark(spark, TURTLE, text) == rdflibs(text)


@pytest.mark.parametrize("condition", ['REGEX(STR(?o), "^a") && STRENDS(STR(?s), "7")',
                                       'STRSTARTS(STR("a\\"b"@en), "a") || isIRI(?o)'])
def test_a_condition_outside_the_translated_ones_is_left_to_the_polars_step(condition):
    assert spark_conditions.condition(_filter_expr(query(condition)), ["s", "o", "n"], _physical) is None


# a view's blank node is stored as an IRI of the skolem prefix (``parse/collected``)
STORED_BLANK, IRI, URN_STRING = "<urn:reasonlake:genid:k1:b0>", "<http://example.org/a>", '"urn:x"'


@pytest.mark.parametrize("condition, kept", [
    ("isBLANK(?o)", {STORED_BLANK}),
    ("isIRI(?o) && !isLITERAL(?o)", {IRI}),
    ('STRSTARTS(STR(?o), "urn")', {URN_STRING}),  # STR of a blank node is an error
    ('CONTAINS(STR(?o), "genid") || STRENDS(?o, "x")', {URN_STRING}),
])
def test_a_stored_blank_node_is_a_blank_node_to_spark_as_to_the_polars_step(spark, condition, kept):
    expr = _filter_expr(query(condition))
    terms = [STORED_BLANK, IRI, URN_STRING]
    frames = SparkFrames(spark)
    found = spark_conditions.condition(expr, ["o"], _physical)
    assert found is not None
    on_spark = frames.collect(frames.constant({"o": terms}, {"o": pl.String})
                              .where(found.decided & F.coalesce(found.truth, F.lit(False))))
    compiler = Compiler(["o"])
    truth = compiler.truth(expr)
    on_polars = compiler.apply(pl.LazyFrame({"o": terms})).filter(truth).collect()
    assert Counter(on_spark["o"].to_list()) == Counter(on_polars["o"].to_list()) == Counter(kept)
