"""Over-deletion (delete and re-derive, step 1) in the driver equals over-deletion on Spark,
over every rule's cases (transitive properties, chains, restrictions, intersections, keys)."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from reasonlake.engine.reason import budget, dred
from reasonlake.engine.reason.program_tables import encode_program, term_ids
from reasonlake.engine.reason.spark_rounds import run_fixpoint
from tests.engine.reason.test_owl2rl_rules import RULE_IDS, _items_of, _program

SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING"


@pytest.fixture(scope="module")
def closed(spark):
    """Every rule's cases closed under unique names (the repair setting): the tables, the
    materialization, and every third explicit item as the rows repair takes out."""
    program = _program(unique_names=True)
    items = _items_of(RULE_IDS)
    tables = encode_program(spark, program)
    ids = term_ids(spark, {t for triple in items for t in triple} | program.terms())
    seed = spark.createDataFrame([(ids[s], ids[p], ids[o], origin, "explicit")
                                  for (s, p, o), origin in items.items()], SCHEMA)
    base = run_fixpoint(spark, spark.createDataFrame([], SCHEMA), seed, tables).changes
    base = base.select("s", "p", "o", "origin", "rule").localCheckpoint()
    explicit = sorted(tuple(r) for r in base.where(F.col("rule") == "explicit").collect())
    return tables, base, explicit[::3]


def _rows(frame) -> list[tuple]:
    return sorted(tuple(r) for r in frame.collect())


def test_overdelete_in_driver_equals_spark(spark, closed, monkeypatch):
    tables, base, losers = closed
    seeds = spark.createDataFrame(losers, SCHEMA)
    in_driver = dred._overdelete_in_driver(spark, base, seeds, tables)
    assert in_driver is not None, "the rules of the cases suit the driver"
    monkeypatch.setattr(budget, "LOCAL_ROWS", 0)
    on_spark = dred.overdelete(spark, base, seeds, tables)
    assert _rows(in_driver[0]) == _rows(on_spark[0])
    assert in_driver[1] == on_spark[1]
    assert len(_rows(on_spark[0])) > len(losers) > 20  # consequences went too


def test_a_neighbourhood_past_the_budget_goes_to_spark(spark, closed, monkeypatch):
    tables, base, losers = closed
    monkeypatch.setattr(budget, "LOCAL_ROWS", len(losers) + 1)
    assert dred._overdelete_in_driver(spark, base, spark.createDataFrame(losers, SCHEMA), tables) is None
    deleted, _ = dred.overdelete(spark, base, spark.createDataFrame(losers, SCHEMA), tables)
    assert deleted.count() > len(losers)
