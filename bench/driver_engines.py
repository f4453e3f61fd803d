"""Which columnar engine runs a close in the driver: one semi-naive round of the throughput
scenario (``bench/throughput.py``) in Polars and in DuckDB, over the same Arrow tables.

The round is what a close spends its rule time on: Δ joined with the linear rule tables
(rdf:type by class through the saturated hierarchy, the sub-property and its domain), the
transitive property joined both ways with the known facts, the best origin per fact, and
the candidates that beat what is known (anti-join with the window's facts). Sizes: Δ = the
items of one slide, known = the closure of a 3-slide window (about 2.5 facts an item).

    python bench/driver_engines.py                  # 200k items a slide
    python bench/driver_engines.py --items 1000000
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import polars as pl

TYPE, HAS_PART, RELATED, PART_OF, ASSEMBLY = 1, 2, 3, 4, 5
LEAVES = list(range(100, 164))
MIDS = list(range(200, 208))
TOP = 300


def rule_tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    by_value = [(TYPE, leaf, "cax-sco", TYPE, sup) for leaf in LEAVES for sup in (MIDS[leaf % 8], TOP)]
    by_value += [(TYPE, mid, "cax-sco", TYPE, TOP) for mid in MIDS]
    by_value_frame = pl.DataFrame(by_value, schema=["in_p", "in_o", "rule", "out_p", "out_o"], orient="row")
    by_property = pl.DataFrame([(HAS_PART, "prp-spo1", RELATED, False), (HAS_PART, "prp-dom", TYPE, True)],
                               schema=["in_p", "rule", "out_p", "constant"], orient="row")
    return by_value_frame, by_property


def facts(n: int, start: int, rng, origin_lo: int, origin_hi: int) -> pl.DataFrame:
    kind = np.arange(n) % 4
    s = start + np.arange(n)
    p = np.where(kind < 2, TYPE, np.where(kind == 2, HAS_PART, PART_OF))
    o = np.where(kind < 2, rng.choice(LEAVES, n), start + rng.integers(0, n, n))
    return pl.DataFrame({"s": s, "p": p, "o": o, "origin": rng.integers(origin_lo, origin_hi, n),
                         "rule": ["explicit"] * n})


def polars_round(delta: pl.DataFrame, known: pl.DataFrame, by_value, by_property, lazy: bool = False) -> int:
    if lazy:  # one plan, collected once (the engine's optimizer sees the whole round)
        delta, known, by_value, by_property = (x.lazy() for x in (delta, known, by_value, by_property))
    d = delta.select("s", "p", "o", "origin")
    typed = d.join(by_value, left_on=["p", "o"], right_on=["in_p", "in_o"]).select(
        "s", pl.col("out_p").alias("p"), pl.col("out_o").alias("o"), "origin", "rule")
    props = d.join(by_property, left_on="p", right_on="in_p").select(
        "s", pl.col("out_p").alias("p"),
        pl.when(pl.col("constant")).then(pl.lit(ASSEMBLY, pl.Int64)).otherwise(pl.col("o")).alias("o"), "origin", "rule")
    chain = known.filter(pl.col("p") == PART_OF).select("s", "o", "origin")
    dp = d.filter(pl.col("p") == PART_OF)
    trans = pl.concat([
        dp.join(chain, left_on="o", right_on="s", suffix="_r").select(
            "s", pl.lit(PART_OF, pl.Int64).alias("p"), pl.col("o_r").alias("o"),
            pl.min_horizontal("origin", "origin_r").alias("origin"), pl.lit("prp-trp").alias("rule")),
        chain.join(dp, left_on="o", right_on="s", suffix="_r").select(
            "s", pl.lit(PART_OF, pl.Int64).alias("p"), pl.col("o_r").alias("o"),
            pl.min_horizontal("origin", "origin_r").alias("origin"), pl.lit("prp-trp").alias("rule")),
    ])
    candidates = pl.concat([typed, props, trans])
    best = candidates.group_by("s", "p", "o").agg(
        pl.col("rule").sort_by("origin").last(), pl.col("origin").max())
    new = best.join(known.select("s", "p", "o", pl.col("origin").alias("k")), on=["s", "p", "o"], how="left").filter(
        pl.col("k").is_null() | (pl.col("origin") > pl.col("k")))
    return new.select(pl.len()).collect().item() if lazy else new.height


def duckdb_round(con) -> int:
    """The round over the Arrow tables registered as delta, known, by_value, by_property."""
    return con.execute(f"""
        WITH candidates AS (
            SELECT d.s, r.out_p AS p, r.out_o AS o, d.origin, r.rule FROM delta d
              JOIN by_value r ON d.p = r.in_p AND d.o = r.in_o
            UNION ALL
            SELECT d.s, r.out_p, CASE WHEN r.constant THEN {ASSEMBLY} ELSE d.o END, d.origin, r.rule FROM delta d
              JOIN by_property r ON d.p = r.in_p
            UNION ALL
            SELECT d.s, d.p, k.o, least(d.origin, k.origin), 'prp-trp' FROM delta d
              JOIN known k ON d.p = {PART_OF} AND k.p = {PART_OF} AND d.o = k.s
            UNION ALL
            SELECT k.s, k.p, d.o, least(d.origin, k.origin), 'prp-trp' FROM known k
              JOIN delta d ON d.p = {PART_OF} AND k.p = {PART_OF} AND k.o = d.s
        ), best AS (
            SELECT s, p, o, arg_max(rule, origin) AS rule, max(origin) AS origin FROM candidates GROUP BY s, p, o
        )
        SELECT count(*) FROM best b LEFT JOIN known k ON b.s = k.s AND b.p = k.p AND b.o = k.o
        WHERE k.origin IS NULL OR b.origin > k.origin
    """).fetchall()[0][0]


def timed(fn, repeats: int) -> float:
    fn()  # warm
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=200_000, help="items a slide (Δ)")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    rng = np.random.default_rng(7)
    n = args.items
    delta = facts(n, 3 * n, rng, 20_000, 30_000)
    known = pl.concat([facts(n, k * n, rng, 0, 20_000) for k in range(3)] * 2).unique(subset=["s", "p", "o"])
    known = pl.concat([known, known.with_columns(pl.col("o") + 7, pl.lit("cax-sco").alias("rule"))])  # ≈ the closure's size
    by_value, by_property = rule_tables()
    rows = [("polars " + pl.__version__ + " (eager)", timed(lambda: polars_round(delta, known, by_value, by_property), args.repeats)),
            ("polars " + pl.__version__ + " (lazy)",
             timed(lambda: polars_round(delta, known, by_value, by_property, lazy=True), args.repeats))]
    try:
        import duckdb
    except ImportError:
        rows.append(("duckdb (not installed: pip install duckdb)", float("nan")))
    else:
        con = duckdb.connect()
        con.execute("SET threads TO 2")
        for name, table in zip(("delta", "known", "by_value", "by_property"), (delta, known, by_value, by_property)):
            con.register(name, table.to_arrow())
        rows.append(("duckdb " + duckdb.__version__, timed(lambda: duckdb_round(con), args.repeats)))
    check = polars_round(delta, known, by_value, by_property)
    print(f"\nOne semi-naive round: Δ {delta.height:,} items, known {known.height:,} facts "
          f"({check:,} facts enter Δ); median of {args.repeats}")
    print("| engine | seconds |\n|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
