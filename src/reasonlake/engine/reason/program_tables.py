"""A compiled program as small Spark tables, broadcast into every rule join."""
from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
from pyspark.sql import DataFrame

from reasonlake.compile.join_groups import JoinGroup, group_rules
from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, Program
from reasonlake.engine.store.dictionary import driver_term_id
from reasonlake.engine.store.schemas import FACT_FRAME_SCHEMA, FACT_SCHEMA
from reasonlake.plan.windows import NEVER
from reasonlake.vocab import SAME_AS, TYPE

# How a head term is built from the premise: its subject, its object, or a constant.
FROM_S, FROM_O, CONSTANT = 0, 1, 2


@dataclass
class ProgramTables:
    type_id: int
    same_as_id: int
    joins: list[JoinGroup] = field(default_factory=list)  # positive multi-premise rules
    negative: list[JoinGroup] = field(default_factory=list)  # violation patterns
    checks_literals: bool = False  # dt-not-type: literals checked against their datatype
    # driver_matching.LocalProgram: these tables as Python look-ups, built on first use
    local: object = field(default=None, repr=False, compare=False)
    # driver_rules.VectorProgram: these tables as driver frames, built on first use
    vector: object = field(default=None, repr=False, compare=False)
    # the one-premise rules (``LINEAR_COLUMNS``): premise (x in_p in_o), e.g. rdf:type C or a
    # hasValue restriction's (x P v), or (x in_p y), any y, where in_o is null; the
    # transitive properties (p, trule); the background facts (s, p, o, origin (+inf), rule),
    # None when there are none: as driver frames, and as Spark frames (``linear``,
    # ``background``) made from them on first use. The rounds on Spark name the transitive
    # properties as literals
    driver_linear: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    driver_transitive: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    driver_background: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    spark: object = field(default=None, repr=False, compare=False)
    _spark_frames: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def linear(self) -> DataFrame:
        """The one-premise rules as a Spark frame (``LINEAR_SCHEMA``), made when first asked
        for: a close whose rounds run in the driver never asks, and a fresh process's first
        ``createDataFrame`` took 1.4 s of a scheduled job's first close (the JVM's schema
        parser and Arrow conversion loaded for it)."""
        return self._spark_frame("linear", self.driver_linear, LINEAR_SCHEMA)

    @property
    def background(self) -> DataFrame | None:
        """The background facts as a Spark frame, made when first asked for; None: none."""
        if self.driver_background is None:
            return None
        return self._spark_frame("background", self.driver_background, FACT_SCHEMA)

    def _spark_frame(self, name: str, rows: pl.DataFrame, schema: str) -> DataFrame:
        if name not in self._spark_frames:
            self._spark_frames[name] = self.spark.createDataFrame(rows.rows(), schema)
        return self._spark_frames[name]


def _source(position: str) -> int:
    return {FROM_SUBJECT: FROM_S, FROM_OBJECT: FROM_O}.get(position, CONSTANT)


def term_ids(spark, terms: set[str]) -> dict[str, int]:
    """Ids of a set of terms, computed in the driver (``driver_term_id``: the ids Spark's
    ``term_id`` gives; ``spark`` is kept for the callers' signature)."""
    return {t: driver_term_id(t) for t in terms}


LINEAR_COLUMNS = {"rule": pl.String, "in_p": pl.Int64, "in_o": pl.Int64, "head_s_from_o": pl.Boolean,
                  "out_p": pl.Int64, "out_o_from": pl.Int32, "out_o": pl.Int64}
LINEAR_SCHEMA = "rule STRING, in_p BIGINT, in_o BIGINT, head_s_from_o BOOLEAN, out_p BIGINT, out_o_from INT, out_o BIGINT"


def encode_program(spark, program: Program, extra_background=()) -> ProgramTables:
    """The program's tables with their terms as ids, computed in the driver: driver frames,
    and Spark frames of the same rows made here when first asked for (no job, no call to a
    Connect server)."""
    def ident(term: str | None) -> int | None:
        return None if term is None else driver_term_id(term)

    rows = [
        (
            r.rule,
            ident(r.in_p),
            ident(r.in_o),
            r.out_s == FROM_OBJECT,
            ident(r.out_p),
            _source(r.out_o),
            ident(r.out_o) if _source(r.out_o) == CONSTANT else None,
        )
        for r in program.linear
    ]
    encoded = pl.DataFrame(rows, schema=LINEAR_COLUMNS, orient="row")
    ids = term_ids(spark, program.terms() | {TYPE, SAME_AS})
    transitive_rows = [(driver_term_id(p), "eq-trans" if p == SAME_AS else "prp-trp") for p in program.transitive]

    facts = [(rule, *triple) for rule, triple in program.background] + [
        ("explicit", *triple) for triple in extra_background
    ]
    driver_background = None
    if facts:
        encoded_facts = [(*(driver_term_id(t) for t in triple), NEVER, rule) for rule, *triple in facts]
        driver_background = pl.DataFrame(encoded_facts, orient="row", schema=FACT_FRAME_SCHEMA)
    transitive = pl.DataFrame(transitive_rows, schema={"p": pl.Int64, "trule": pl.String}, orient="row")
    joins, negative = group_rules(program.positive(), ids), group_rules(program.negative(), ids)
    return ProgramTables(
        type_id=ids[TYPE],
        same_as_id=ids[SAME_AS],
        joins=joins,
        negative=negative,
        checks_literals=program.checks_literals,
        driver_linear=encoded,
        driver_transitive=transitive,
        driver_background=driver_background,
        spark=spark,
    )
