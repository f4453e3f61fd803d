"""One-shot closure of a set of triples on Spark, without Delta: the engine's rules, the
same fixpoint a slide runs, on data held in memory. Used by the rule and
conformance tests, where a Delta table per case would only add time.
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.compile.program import Program
from reasonlake.engine.reason.program_tables import encode_program, term_ids
from reasonlake.engine.reason.spark_rounds import find_violations, run_fixpoint

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Violation:
    rule: str
    bindings: dict[str, str]
    triples: tuple[tuple[str, str, str, int], ...]


@dataclass(frozen=True)
class Closure:
    facts: dict[Triple, tuple[int, str]]  # triple -> (origin, rule)
    violations: tuple[Violation, ...]
    rounds: int


def close(spark, program: Program, items: dict[Triple, int], background: tuple[Triple, ...] = ()) -> Closure:
    """items: triple -> origin (its time). Terms in N-Triples syntax."""
    tables = encode_program(spark, program, extra_background=background)
    terms = {t for triple in list(items) + list(background) for t in triple} | program.terms()
    ids = term_ids(spark, terms)
    names = {v: k for k, v in ids.items()}
    rows = [(ids[s], ids[p], ids[o], origin, "explicit") for (s, p, o), origin in items.items()]
    schema = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING"
    seed = spark.createDataFrame(rows, schema)
    if tables.background is not None:
        seed = seed.unionByName(tables.background)
    empty = spark.createDataFrame([], schema)
    result = run_fixpoint(spark, empty, seed, tables)
    facts = {
        (names[r.s], names[r.p], names[r.o]): (r.origin, r.rule)
        for r in result.changes.collect()
    }
    dictionary = spark.createDataFrame(sorted(names.items()), "id BIGINT, term STRING")
    found = find_violations(spark, empty, result, tables, terms=lambda: dictionary)
    violations = []
    if found is not None:
        for r in found.orderBy("rule", "key").collect():
            violations.append(Violation(
                rule=r.rule,
                bindings={k: names.get(v, str(v)) for k, v in (r.bindings or {}).items()},
                triples=tuple((names[t.s], names[t.p], names[t.o], t.origin) for t in r.triples),
            ))
    return Closure(facts=facts, violations=tuple(violations), rounds=result.rounds)




__all__ = ["close", "Closure", "Violation"]
