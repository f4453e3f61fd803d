"""A compiled program as small Spark tables, broadcast into every rule join."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.compile.program import OBJECT, SUBJECT, Program
from reasonlake.engine.terms import term_id
from reasonlake.vocab import TYPE

# How a head term is built from the premise: its subject, its object, or a constant.
FROM_S, FROM_O, CONSTANT = 0, 1, 2


@dataclass
class ProgramTables:
    type_id: int
    by_class: DataFrame  # premise (x rdf:type in_o)
    by_property: DataFrame  # premise (x in_p y), any y
    transitive: DataFrame | None  # column p


def _source(position: str) -> int:
    return {SUBJECT: FROM_S, OBJECT: FROM_O}.get(position, CONSTANT)


def encode_program(spark, program: Program) -> ProgramTables:
    rows = [
        (
            r.rule,
            r.in_p,
            r.in_o,
            r.out_s == OBJECT,
            r.out_p,
            _source(r.out_o),
            r.out_o if _source(r.out_o) == CONSTANT else None,
        )
        for r in program.linear
    ]
    schema = "rule STRING, in_p STRING, in_o STRING, head_s_from_o BOOLEAN, out_p STRING, out_o_from INT, out_o STRING"
    raw = spark.createDataFrame(rows, schema)
    encoded = raw.select(
        "rule",
        term_id(F.col("in_p")).alias("in_p"),
        term_id(F.col("in_o")).alias("in_o"),
        "head_s_from_o",
        term_id(F.col("out_p")).alias("out_p"),
        "out_o_from",
        term_id(F.col("out_o")).alias("out_o"),
    ).cache()
    type_id = spark.range(1).select(term_id(F.lit(TYPE)).alias("id")).first().id
    transitive = None
    if program.transitive:
        transitive = (
            spark.createDataFrame([(p,) for p in program.transitive], "p STRING")
            .select(term_id(F.col("p")).alias("p"))
            .cache()
        )
    return ProgramTables(
        type_id=type_id,
        by_class=encoded.where(F.col("in_o").isNotNull()),
        by_property=encoded.where(F.col("in_o").isNull()).drop("in_o"),
        transitive=transitive,
    )
