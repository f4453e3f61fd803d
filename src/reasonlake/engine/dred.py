"""Delete and re-derive (DRed) over the (max, min) semiring of origins.

When repair removes explicit items already in the materialization, the facts whose origin
they gave must go or get the origin their other derivations give:
1. Over-delete: starting from the removed items' facts, every fact one rule application
   reaches *with an origin at least its own* may owe its origin to them; a derivation with
   an earlier origin never set a fact's origin (the max over derivations did), so the
   over-deletion stops there instead of spreading through the whole window.
2. Re-derive: each over-deleted fact's remaining support, i.e. its surviving explicit items
   and every derivation from the facts left, seeds the ordinary semi-naive insertion, which
   restores it (with its correct origin) and everything that follows from it.
Every derivation's head shares a term with one of its premises in subject or object
position (OWL 2 RL rules are safe), so only the remaining facts that touch an over-deleted
fact's subject take part in step 2's one rule application.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine import join_rules
from reasonlake.engine.fixpoint import BROADCAST_ROWS, EXPLICIT, derive
from reasonlake.engine.program_tables import ProgramTables

KEY = ["s", "p", "o"]


def overdelete(spark, base: DataFrame, seeds: DataFrame, tables: ProgramTables) -> tuple[DataFrame, int]:
    """base: the materialization (s, p, o, origin, rule); seeds: its rows to delete.
    Returns every row of base whose origin may depend on them (seeds included), and how
    many rows that is (each round's Δ is counted anyway)."""
    deleted = seeds.select(*KEY, "origin", "rule").localCheckpoint()
    delta = deleted
    full = base.select(*KEY, "origin")
    base_rows = base.count()
    total = 0
    while True:
        size, present = join_rules.summarize(delta, tables.type_id)
        if size == 0:
            break
        total += size
        reached = derive(spark, delta, full, tables, present, small=size <= BROADCAST_ROWS,
                         full_small=base_rows <= BROADCAST_ROWS)
        best = reached.groupBy(*KEY).agg(F.max("origin").alias("d_origin"))
        if size <= BROADCAST_ROWS:  # a small Δ reaches few facts: look them up, never shuffle base
            best = F.broadcast(best)
        hit = (
            base.join(best, KEY)
            .where(F.col("d_origin") >= F.col("origin"))
            .select(*KEY, "origin", "rule")
            .join(deleted.select(*KEY), KEY, "left_anti")
            .localCheckpoint()
        )
        deleted = deleted.unionByName(hit).localCheckpoint()
        delta = hit
    return deleted, total


def rederive_seed(spark, remaining: DataFrame, deleted: DataFrame, items: DataFrame,
                  tables: ProgramTables) -> DataFrame:
    """Candidate facts (s, p, o, origin, rule) that restore over-deleted facts.

    remaining: the materialization without the over-deleted rows; items: the window's
    surviving explicit items (s, p, o, ts)."""
    keys = deleted.select(*KEY)
    subjects = deleted.select(F.col("s").alias("t")).distinct()
    touching = remaining.join(F.broadcast(subjects), remaining.s == subjects.t, "left_semi").unionByName(
        remaining.join(F.broadcast(subjects), remaining.o == subjects.t, "left_semi")
    ).distinct().localCheckpoint()
    size, present = join_rules.summarize(touching, tables.type_id)
    parts = []
    if size:
        full = remaining.select(*KEY, "origin")
        derived = derive(spark, touching.select(*KEY, "origin"), full, tables, present,
                         small=size <= BROADCAST_ROWS, full_small=False)
        parts.append(derived.join(F.broadcast(keys), KEY, "left_semi"))
    explicit = items.join(F.broadcast(keys), KEY, "left_semi").groupBy(*KEY).agg(
        F.max("ts").alias("origin")
    ).select(*KEY, "origin", F.lit(EXPLICIT).alias("rule"))
    parts.append(explicit)
    if tables.background is not None:
        parts.append(tables.background.join(F.broadcast(keys), KEY, "left_semi").select(*KEY, "origin", "rule"))
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out
