"""Aggregates observed on a checkpoint (``spark.observed``) equal the same aggregates run
as a query of their own, the way a Spark Connect session gets them, empty frames included."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F


@pytest.mark.parametrize("rows", [[], [(1, 10), (1, 11), (2, 12)]])
def test_observed_aggregates_equal_a_query_of_their_own(spark, monkeypatch, rows):
    from reasonlake.spark import observed
    from reasonlake.spark import classic

    frame = spark.createDataFrame(rows, "p BIGINT, o BIGINT").groupBy("p").agg(F.max("o").alias("o"))
    aggregates = {"rows": F.count(F.lit(1)), "top": F.max("o"), "predicates": F.collect_set("p")}
    seen, values = observed.checkpointed(frame, **aggregates)
    monkeypatch.setattr(classic, "jvm", lambda spark: None)  # as over Spark Connect
    asked, answers = observed.checkpointed(frame, **aggregates)
    assert sorted(seen.collect()) == sorted(asked.collect()) == sorted(frame.collect())
    assert {**values, "predicates": sorted(values["predicates"])} == {
        **answers, "predicates": sorted(answers["predicates"])}
    assert values["rows"] == len({p for p, _ in rows})
