"""dt-not-type (OWL 2 RL, Table 8): a fact whose object is an ill-typed literal is a violation.

The rule has no join: it is a property of one term, the literal. A close takes the
distinct literal ids among its changed facts (literals have negative ids), asks the
dictionary for the text of those it has not checked yet, checks each against its datatype's
lexical space (``parse.lexical_space``, in the driver) and turns every changed fact that
carries an ill-typed one into a violation row: rule ``dt-not-type``, binding ``lt`` (the
literal), the fact as its one triple and its origin. A derived fact carrying the literal is
a row of its own, as any violation over a derived fact is; the row leaves the window with
its fact and is renewed with it.

A term id is a hash of the term's text, so whether an id is ill-typed never changes: the
answer is kept for the process, and each literal is looked up and checked once however
many closes renew it.
"""
from __future__ import annotations

from typing import Callable

import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.reason.spark_joins import violation_key
from reasonlake.engine.store.arrow_bridge import to_spark
from reasonlake.parse.lexical_space import CHECKS, ill_typed

RULE = "dt-not-type"

# literal id -> ill-typed, for this process; emptied when it grows past the bound
_checked = pl.DataFrame(schema={"id": pl.Int64, "ill": pl.Boolean})
_MAX_CHECKED = 5_000_000


def ill_typed_ids(spark, terms: Callable[[], DataFrame], literal_ids: pl.Series) -> pl.Series:
    """The ids among ``literal_ids`` (literal term ids) whose literal is ill-typed.

    terms: reads the dictionary (id, term), when an id needs it. Only ids not checked before are looked up, and of
    those only the literals of a checked datatype come back to the driver."""
    global _checked
    wanted = pl.DataFrame({"id": literal_ids.unique()}, schema={"id": pl.Int64})
    unknown = wanted.join(_checked, on="id", how="anti")
    if not unknown.is_empty():
        found = _look_up(spark, terms, unknown.get_column("id"))
        verdicts = unknown.join(found, on="id", how="left").select(
            "id", pl.col("term").map_elements(ill_typed, return_dtype=pl.Boolean).fill_null(False).alias("ill"))
        if _checked.height + verdicts.height > _MAX_CHECKED:
            _checked = _checked.clear()
        _checked = pl.concat([_checked, verdicts])
    return wanted.join(_checked.filter(pl.col("ill")), on="id", how="semi").get_column("id")


def _look_up(spark, terms: Callable[[], DataFrame], ids: pl.Series) -> pl.DataFrame:
    """(id, term) of the given ids whose text is a literal of a checked datatype."""
    wanted = to_spark(spark, ids.to_frame("id"), "id BIGINT")
    datatype = F.regexp_extract(F.col("term"), r'"\^\^<([^<>]*)>$', 1)
    rows = (terms().where((F.col("id") < 0) & datatype.isin(list(CHECKS)))
            .join(F.broadcast(wanted), "id", "left_semi").select("id", "term").collect())
    return pl.DataFrame([(r.id, r.term) for r in rows], schema={"id": pl.Int64, "term": pl.String}, orient="row")


def driver_violations(spark, terms: Callable[[], DataFrame], changed: pl.DataFrame) -> list[tuple]:
    """Violation rows (rule, bindings, triples, origin) of the changed facts (s, p, o,
    origin) held in the driver."""
    literals = changed.filter(pl.col("o") < 0).get_column("o")
    if literals.is_empty():
        return []
    bad = ill_typed_ids(spark, terms, literals)
    if bad.is_empty():
        return []
    hits = changed.filter(pl.col("o").is_in(bad.implode()))
    return [(RULE, {"lt": o}, [(s, p, o, origin)], origin)
            for s, p, o, origin in hits.select("s", "p", "o", "origin").iter_rows()]


def spark_violations(spark, terms: Callable[[], DataFrame], changed: DataFrame) -> DataFrame | None:
    """Violation rows (key, rule, bindings, triples, origin) of the changed facts (s, p, o,
    origin) of a Spark frame; None when none carries an ill-typed literal."""
    literals = changed.where(F.col("o") < 0).select("o").distinct().toArrow()
    bad = ill_typed_ids(spark, terms, pl.from_arrow(literals).get_column("o"))
    if bad.is_empty():
        return None
    ids = spark.createDataFrame([(int(x),) for x in bad], "o BIGINT")
    hits = changed.join(F.broadcast(ids), "o")
    rows = hits.select(
        F.lit(RULE).alias("rule"),
        F.create_map(F.lit("lt"), F.col("o")).alias("bindings"),
        F.array(F.struct("s", "p", "o", "origin")).alias("triples"),
        "origin",
    )
    return rows.select(violation_key().alias("key"), "*")
