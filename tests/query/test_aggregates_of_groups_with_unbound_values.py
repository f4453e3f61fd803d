"""Aggregates over groups where an OPTIONAL leaves some values unbound, and GROUP_CONCAT's
default separator: cases the generated queries do not draw (they aggregate only values a
FILTER made numeric, and leave GROUP_CONCAT to the unit tests). Driver only: Spark runs the
very Polars aggregations of a group (``spark_frames.group``)."""
from __future__ import annotations

from collections import Counter

from tests.query.small_graphs import ours, rdflibs

XSD = "http://www.w3.org/2001/XMLSchema#"
# group K: two scores and one item without any; group L: only an item without a score
DATA = """@prefix ex: <http://ex/> .
ex:s1 ex:kind ex:K ; ex:score 2 ; ex:name "b" . ex:s2 ex:kind ex:K ; ex:score 4 ; ex:name "a" .
ex:s3 ex:kind ex:K . ex:s4 ex:kind ex:L .
"""
PREFIX = "PREFIX ex: <http://ex/>\n"


def _numbers(found: Counter) -> dict:
    """Each row's terms read as (lexical value, datatype) with the value as a float, so that
    "3"^^xsd:decimal (rdflib) and "3.0"^^xsd:decimal (ours) compare equal."""
    def value(term: str):
        lexical, _, datatype = term.partition("^^")
        return float(lexical.strip('"')), datatype
    return {row[0]: tuple(value(t) for t in row[1:]) for row in found}


def test_avg_sum_and_count_read_only_the_bound_values():
    """AVG divides by the group's values, not its rows (18.5.1.4: an unbound value is no
    value); a group of no values gives 0 for SUM, AVG and COUNT, an xsd:integer."""
    query = PREFIX + ("SELECT ?k (AVG(?v) AS ?m) (SUM(?v) AS ?t) (COUNT(?v) AS ?n) "
                      "WHERE { ?s ex:kind ?k OPTIONAL { ?s ex:score ?v } } GROUP BY ?k")
    found = ours(DATA, query)
    integer, decimal = f"<{XSD}integer>", f"<{XSD}decimal>"
    assert _numbers(found) == {"<http://ex/K>": ((3.0, decimal), (6.0, integer), (2.0, integer)),
                               "<http://ex/L>": ((0.0, integer), (0.0, integer), (0.0, integer))}
    assert _numbers(found) == _numbers(rdflibs(DATA, query))


def test_group_concat_joins_with_one_space_by_default():
    """GROUP_CONCAT without a separator joins with a single space (18.5.1.7); the order of
    the values is left open, and an unbound value is left out."""
    query = PREFIX + ("SELECT ?k (GROUP_CONCAT(?n) AS ?all) "
                      "WHERE { ?s ex:kind ?k OPTIONAL { ?s ex:name ?n } } GROUP BY ?k")
    joined = {k: text for k, text in ours(DATA, query)}
    assert joined["<http://ex/L>"] == '""'
    assert joined["<http://ex/K>"] in ('"a b"', '"b a"'), joined
