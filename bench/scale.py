"""Scale-out of the Spark backend: the same closes on one core, two cores, executors in JVMs
of their own (``local-cluster``) and a standalone master with two workers, beside the
driver backend.

The scenario is `bench/throughput.py`'s (a JSONL file of N items every 10 s of event time,
a 30 s window sliding by 10 s, rdfs-plus), run through ``throughput.py --one`` in a process
per (setting, size):
- ``driver``: the driver backend on ``local[2]``, the reference;
- ``local1``, ``local2``, ``local-cluster``, ``standalone``: the Spark backend
  (``REASONLAKE_LOCAL_ROWS=0``) on ``local[1]``, ``local[2]``, ``local-cluster[2,1,2048]``
  (executors in JVMs of their own) and a standalone master. ``standalone`` is Spark's master and two
  one-core workers started from the pyspark package's own scripts (``bin/spark-class``),
  stopped at the end.

A close on the Spark backend runs its rule rounds in the driver over the facts of the table
its change reaches (``reason/neighbourhood``), as a window too large for the driver does;
``--rounds-on-spark`` runs them as Spark jobs instead (what a change too large for the
driver does).

A window larger than the driver's budget: ``--driver-rows R`` gives the driver backend a
budget of R facts. A view larger than that closes on Spark even there (the product's own
choice), and the table says so. Printed per (setting, size): the view's rows, sustained
items/s (items over ingest + slide), close seconds, Spark jobs per close, peak JVM memory
of the driver, and whether the view at the last close equals the first setting's (a
fingerprint of its decoded rows: subject, predicate, object, origin).

    python bench/scale.py --quick                                # 10k items a slide, 2 closes
    python bench/scale.py --sizes 10000,100000,200000 --driver-rows 400000
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: tests.standalone starts the cluster

from tests.standalone import standalone_master  # noqa: E402
# setting: its master (the standalone master's URL is known once it runs)
SETTINGS = {"driver": "local[2]", "local1": "local[1]", "local2": "local[2]",
            "local-cluster": "local-cluster[2,1,2048]", "standalone": None}


def run(setting: str, master: str, n: int, closes: int, out: Path, driver_rows: int | None,
        rounds_on_spark: bool = False) -> dict:
    env = dict(os.environ)
    env["REASONLAKE_SPARK_MASTER"] = master
    if setting == "driver":
        if driver_rows is not None:
            env["REASONLAKE_LOCAL_ROWS"] = str(driver_rows)
    else:
        env["REASONLAKE_LOCAL_ROWS"] = "0"  # the Spark backend: the window is never held in the driver
        if rounds_on_spark:  # and neither is what a close's change reaches
            env["REASONLAKE_NEIGHBOURHOOD_ROWS"] = "0"
        else:  # the rounds over the facts they fetch, within the default driver budget
            env["REASONLAKE_NEIGHBOURHOOD_ROWS"] = str(_default_driver_rows())
    done = subprocess.run(
        [sys.executable, str(HERE / "throughput.py"), "--one", f"rdfs-plus:{n}", "--closes", str(closes),
         "--out", str(out / "scale" / setting),
         "--fingerprint", "--no-peer"],
        env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return {"setting": setting, "n": n, "failed": done.stderr[-2000:]}
    return {"setting": setting, "n": n, **json.loads(done.stdout.strip().splitlines()[-1])}


def _default_driver_rows() -> int:
    from reasonlake.engine.reason import budget

    return budget.driver_budget() // budget.BYTES_PER_FACT


def fmt(x, digits=2) -> str:
    return "nan" if x != x else f"{x:,.{digits}f}"


def table(results: list[dict], budget: int | None) -> str:
    first = {}
    for r in results:
        first.setdefault(r["n"], r.get("fingerprint"))
    head = ["setting", "items/slide", "view rows", "items/s", "close s", "jobs/close", "peak JVM MB",
            "view = the first setting's"]
    rows = []
    for r in results:
        if "failed" in r:
            rows.append([r["setting"], f"{r['n']:,}", "failed", "", "", "", "", ""])
            continue
        name = f"{r['setting']} ({SETTINGS[r['setting']] or 'spark://, 2 workers'})"
        if name == "driver" and budget is not None and r["view_rows"] > budget:
            name += ": over its budget, closes on Spark"
        same = first.get(r["n"])
        rows.append([name, f"{r['n']:,}", f"{r['view_rows']:,}", fmt(r["n"] / r["close_s"], 0), fmt(r["close_s"]),
                     f"{r['jobs']:.0f}", fmt(r["peak_jvm_mb"], 0), "yes" if same == r["fingerprint"] else "NO"])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="10000,100000", help="items per slide, comma-separated")
    p.add_argument("--closes", type=int, default=2, help="measured closes per size (after the window fills)")
    p.add_argument("--settings", default=",".join(SETTINGS), help=f"among {', '.join(SETTINGS)}")
    p.add_argument("--driver-rows", type=int, help="the driver backend's budget in facts (REASONLAKE_LOCAL_ROWS)")
    p.add_argument("--quick", action="store_true", help="10k items a slide, 2 closes")
    p.add_argument("--rounds-on-spark", action="store_true",
                   help="the Spark settings run every rule round as Spark jobs "
                        "(REASONLAKE_NEIGHBOURHOOD_ROWS=0), not in the driver over the facts they fetch")
    p.add_argument("--out", type=Path, default=HERE / "out")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.closes = "10000", 2
    settings = [s for s in args.settings.split(",") if s]
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        p.error(f"unknown settings {sorted(unknown)}: choose among {', '.join(SETTINGS)}")
    sizes = [int(x) for x in args.sizes.split(",")]
    results = []
    with (standalone_master(args.out / "scale" / "standalone-daemons", worker_memory="2560m")
          if "standalone" in settings else _nothing()) as daemons:
        url = daemons[0] if daemons else None
        for n in sizes:
            for setting in settings:
                master = SETTINGS[setting] or url
                t0 = time.perf_counter()
                results.append(run(setting, master, n, args.closes, args.out, args.driver_rows,
                                   args.rounds_on_spark))
                print(f"{setting} {n:,}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"\nThe Spark backend's scale-out: medians over {args.closes} closes after the window filled "
          f"(rdfs-plus; {os.cpu_count()} cores; load avg {os.getloadavg()[0]:.1f}; the Spark settings' rounds "
          f"{'as Spark jobs' if args.rounds_on_spark else 'in the driver over the facts they fetch'})")
    print(table(results, args.driver_rows))
    for r in results:
        if "failed" in r:
            print(f"\n{r['setting']} {r['n']:,} failed:\n{r['failed']}", file=sys.stderr)
    return 0 if not any("failed" in r for r in results) else 1


@contextmanager
def _nothing():
    yield None


if __name__ == "__main__":
    sys.exit(main())
