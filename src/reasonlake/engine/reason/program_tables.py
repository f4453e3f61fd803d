"""A compiled program as small Spark tables, broadcast into every rule join."""
from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, Program
from reasonlake.compile.join_groups import JoinGroup, group_rules
from reasonlake.engine.store.dictionary import term_id
from reasonlake.vocab import SAME_AS, TYPE

# How a head term is built from the premise: its subject, its object, or a constant.
FROM_S, FROM_O, CONSTANT = 0, 1, 2


@dataclass
class ProgramTables:
    type_id: int
    same_as_id: int
    by_value: DataFrame  # premise (x in_p in_o): rdf:type C, or a hasValue restriction's (x P v)
    by_property: DataFrame  # premise (x in_p y), any y
    transitive: DataFrame | None  # columns p, rule
    joins: list[JoinGroup] = field(default_factory=list)  # positive multi-premise rules
    negative: list[JoinGroup] = field(default_factory=list)  # violation patterns
    background: DataFrame | None = None  # s, p, o, origin (+inf), rule
    checks_literals: bool = False  # dt-not-type: literals checked against their datatype
    # driver_matching.LocalProgram: these tables as Python look-ups, built on first use
    local: object = field(default=None, repr=False, compare=False)
    # driver_rules.VectorProgram: these tables as driver frames, built on first use
    vector: object = field(default=None, repr=False, compare=False)


def _source(position: str) -> int:
    return {FROM_SUBJECT: FROM_S, FROM_OBJECT: FROM_O}.get(position, CONSTANT)


def term_ids(spark, terms: set[str]) -> dict[str, int]:
    """Ids of a set of terms, computed by the same Spark expression the tables use."""
    if not terms:
        return {}
    rows = (
        spark.createDataFrame([(t,) for t in sorted(terms)], "term STRING")
        .select("term", term_id(F.col("term")).alias("id"))
        .collect()
    )
    return {r.term: r.id for r in rows}


def encode_program(spark, program: Program, extra_background=()) -> ProgramTables:
    rows = [
        (
            r.rule,
            r.in_p,
            r.in_o,
            r.out_s == FROM_OBJECT,
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
    ids = term_ids(spark, program.terms() | {TYPE, SAME_AS})
    transitive = None
    if program.transitive:
        transitive = (
            spark.createDataFrame(
                [(p, "eq-trans" if p == SAME_AS else "prp-trp") for p in program.transitive],
                "p STRING, rule STRING",
            )
            .select(term_id(F.col("p")).alias("p"), "rule")
            .cache()
        )
    from reasonlake.plan.windows import NEVER

    facts = [(rule, *triple) for rule, triple in program.background] + [
        ("explicit", *triple) for triple in extra_background
    ]
    background = None
    if facts:
        background = spark.createDataFrame(facts, "rule STRING, s STRING, p STRING, o STRING").select(
            *(term_id(F.col(x)).alias(x) for x in ("s", "p", "o")),
            F.lit(NEVER).cast("long").alias("origin"), "rule",
        )
    return ProgramTables(
        type_id=ids[TYPE],
        same_as_id=ids[SAME_AS],
        by_value=encoded.where(F.col("in_o").isNotNull()),
        by_property=encoded.where(F.col("in_o").isNull()).drop("in_o"),
        transitive=transitive,
        joins=group_rules(program.positive(), ids),
        negative=group_rules(program.negative(), ids),
        background=background,
        checks_literals=program.checks_literals,
    )
