"""Terms as 64-bit ids: xxhash64 of the N-Triples form, computed by Spark's built-in.

The sign bit says what a term is: literals are negative, IRIs and blank nodes are not, so
rules that must not put a literal in subject position filter on ``id >= 0`` without a
dictionary look-up. The `terms` table stays authoritative: a new term whose id is already
taken by another term is a collision and stops the job (never merged silently).
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reasonlake.errors import TermCollisionError

_SIGN = -(2**63)
_MAGNITUDE = 2**63 - 1


def term_id(term: Column) -> Column:
    hashed = F.xxhash64(term)
    return (
        F.when(term.isNull(), F.lit(None).cast("long"))
        .when(term.startswith('"'), hashed.bitwiseOR(F.lit(_SIGN)))
        .otherwise(hashed.bitwiseAND(F.lit(_MAGNITUDE)))
    )


def register_terms(spark, terms_path: str, terms: DataFrame) -> None:
    """Add the distinct terms of a one-column DataFrame (`term`) to the dictionary."""
    fresh = terms.where(F.col("term").isNotNull()).distinct().select(
        term_id(F.col("term")).alias("id"), "term"
    )
    known = spark.read.format("delta").load(terms_path).select("id", F.col("term").alias("known"))
    # One pass: a term is new (no row with its id), known (same term), or a collision.
    unseen = fresh.join(known, "id", "left").where(
        F.col("known").isNull() | (F.col("known") != F.col("term"))
    ).localCheckpoint()
    clash = unseen.where(F.col("known").isNotNull()).union(
        unseen.groupBy("id").agg(F.min("term").alias("term"), F.max("term").alias("known"))
        .where(F.col("term") != F.col("known")).select("id", "term", "known")
    ).limit(1).collect()
    if clash:
        row = clash[0]
        raise TermCollisionError(
            f"64-bit term id {row.id} is shared by different terms {sorted({row.term, row.known})}; "
            "nothing was written. Report this: the dictionary needs a wider id"
        )
    new = unseen.select("id", "term")
    if not new.isEmpty():
        new.write.format("delta").mode("append").save(terms_path)


def decode(df: DataFrame, terms: DataFrame, columns: dict[str, str]) -> DataFrame:
    """Replace id columns by their terms: ``{"s": "subject", ...}``."""
    out = df
    for id_col, name in columns.items():
        lookup = terms.select(F.col("id").alias(f"_{id_col}_id"), F.col("term").alias(name))
        out = out.join(lookup, out[id_col] == lookup[f"_{id_col}_id"], "left").drop(f"_{id_col}_id")
    return out
