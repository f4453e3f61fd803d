"""Ingest throughput per format: the same items as JSONL, CSV, N-Triples and N-Quads, read
by this process (plain paths) and by Spark on the executors (``file:`` URIs), beside the
floor Spark itself sets: its JSON reader, ``xxhash64`` ids and a Delta append, with no
validation (the peer the ingest issue measured at 2.2 s for 200k lines).

Each format's items are split over ``--files`` files (the executors parse one file a
task). Every run ingests into a fresh home; a warm-up run comes first. Prints a table of
seconds and items/s; ``--out`` also writes ``ingest.csv``.

    python bench/ingest.py                      # 200k items, 4 files a format
    python bench/ingest.py --items 20000        # a quick run
"""
from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

EX = "http://example.org/"
GEN = "<http://www.w3.org/ns/prov#generatedAtTime>"
XSD = "http://www.w3.org/2001/XMLSchema#"


def _item(i: int) -> tuple[str, str, str, int]:
    kind = i % 3
    o = f"<{EX}p{(i * 7) % 50_000}>" if kind else f'"{i}"^^<{XSD}integer>'
    return f"<{EX}p{i % 50_000}>", f"<{EX}r{i % 20}>", o, 1_000 + i


def write_inputs(folder: Path, items: int, files: int) -> dict[str, list[Path]]:
    per = (items + files - 1) // files
    out: dict[str, list[Path]] = {}
    for fmt in ("jsonl", "csv", "nt", "nq"):
        sub = folder / fmt
        sub.mkdir(parents=True)
        paths = []
        for f in range(files):
            rows = [_item(i) for i in range(f * per, min(items, (f + 1) * per))]
            path = sub / f"part-{f}.{fmt}"
            with path.open("w") as h:
                if fmt == "jsonl":
                    h.writelines(json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n" for s, p, o, ts in rows)
                elif fmt == "csv":
                    w = csv.writer(h)
                    w.writerow(["s", "p", "o", "ts"])
                    w.writerows(rows)
                elif fmt == "nt":
                    h.writelines(f"{s} {p} {o} .\n" for s, p, o, _ in rows)
                else:  # one named graph a 100 items, timed in the default graph
                    for start in range(0, len(rows), 100):
                        g = f"<{EX}g{f}-{start}>"
                        h.writelines(f"{s} {p} {o} {g} .\n" for s, p, o, _ in rows[start:start + 100])
                        h.write(f'{g} {GEN} "2026-11-25T10:00:00Z"^^<{XSD}dateTime> .\n')
            paths.append(path)
        out[fmt] = paths
    return out


def _lake(spark, root: Path):
    from reasonlake.api import Lakehouse

    if root.exists():
        shutil.rmtree(root)
    lake = Lakehouse(str(root), spark=spark)
    lake.init()
    return lake


def _jobs(spark) -> int:
    """The latest job's id: Spark keeps a bounded list of jobs, so their count stops growing."""
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(None), default=-1)


def run_reasonlake(spark, root: Path, paths: list[Path], uri: bool) -> tuple[float, int, int]:
    lake = _lake(spark, root)
    args = [p.resolve().as_uri() for p in paths] if uri else [str(p) for p in paths]
    jobs = _jobs(spark)
    started = time.perf_counter()
    reports = lake.ingest("s", args, ts=1_000)
    took = time.perf_counter() - started
    return took, sum(r.items for r in reports), _jobs(spark) - jobs


def run_floor(spark, root: Path, paths: list[Path]) -> tuple[float, int, int]:
    """Spark's JSON reader, ids by xxhash64, one Delta append: no checks at all."""
    from pyspark.sql import functions as F

    if root.exists():
        shutil.rmtree(root)
    jobs = _jobs(spark)
    started = time.perf_counter()
    rows = spark.read.schema("s STRING, p STRING, o STRING, ts BIGINT").json([str(p) for p in paths])
    out = rows.select("*", *(F.xxhash64(c).alias(f"{c}_id") for c in ("s", "p", "o")))
    out.write.format("delta").save(str(root))
    took = time.perf_counter() - started
    n = spark.read.format("delta").load(str(root)).count()
    return took, n, _jobs(spark) - jobs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--formats", default="jsonl,csv,nt,nq")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from reasonlake.engine.store.session import get_spark

    spark = get_spark()
    spark.sparkContext.setJobGroup(None, None)
    work = Path(tempfile.mkdtemp(prefix="rl-bench-ingest-"))
    try:
        inputs = write_inputs(work / "in", args.items, args.files)
        small = write_inputs(work / "warm", 2_000, 2)
        for fmt in ("jsonl", "nt"):  # warm-up: JVM, Python workers, Delta
            run_reasonlake(spark, work / "w1", small[fmt], uri=False)
            run_reasonlake(spark, work / "w2", small[fmt], uri=True)
        run_floor(spark, work / "w3", small["jsonl"])
        results = []
        for fmt in args.formats.split(","):
            for how, uri in (("this process (path)", False), ("executors (file: URI)", True)):
                took, n, jobs = run_reasonlake(spark, work / "lake", inputs[fmt], uri)
                results.append((fmt, how, n, took, jobs))
            if fmt == "jsonl":
                took, n, jobs = run_floor(spark, work / "floor", inputs[fmt])
                results.append((fmt, "peer: Spark JSON + xxhash64 + Delta, no checks", n, took, jobs))
        cores = spark.sparkContext.defaultParallelism
        print(f"\ningest, {args.items} items in {args.files} files a format, {cores} cores")
        print(f"{'format':7} {'reader':50} {'items':>8} {'seconds':>8} {'items/s':>9} {'jobs':>5}")
        for fmt, how, n, took, jobs in results:
            print(f"{fmt:7} {how:50} {n:8d} {took:8.2f} {n / took:9.0f} {jobs:5d}")
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            with (args.out / "ingest.csv").open("w", newline="") as h:
                w = csv.writer(h)
                w.writerow(["format", "reader", "items", "seconds", "items_per_s", "jobs"])
                w.writerows([(f, how, n, f"{t:.3f}", f"{n / t:.0f}", j) for f, how, n, t, j in results])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
