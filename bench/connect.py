"""A slide over Spark Connect beside the same slide on a classic session.

The scenario is `throughput.py`'s (files of N items landing every 10 s of event time, a
30 s window sliding by 10 s, rdfs-plus). Per N, two homes get the same files: one on the
embedded classic session, one through a Spark Connect server (`reasonlake server start`:
the same embedded Spark behind the Connect plugin, on the loopback address), each driven by
a process of its own. The window is filled first (untimed), then ``--closes`` files are
ingested and slid one by one. Printed: median seconds of ingest and slide per close, and
the slide's ratio Connect / classic (the aim: at most 1.5).

    python bench/connect.py                    # 1k and 10k items a slide, 3 closes
    python bench/connect.py --sizes 10000 --closes 5
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import throughput  # noqa: E402 (the scenario)


def worker(mode: str, work: Path, n: int, closes: int, seed: int) -> dict:
    """One home in this process; ``mode`` classic or connect."""
    from reasonlake.api import Lakehouse

    fill = throughput.WIDTH_MS // throughput.SLIDE_MS
    (work / "files").mkdir(parents=True)
    (work / "tbox.ttl").write_text(throughput.tbox())
    (work / "view.yaml").write_text(
        "name: v\nstream: s\nontology: [tbox.ttl]\nprofile: rdfs-plus\n"
        f"window: {{width: {throughput.WIDTH_MS}ms, slide: {throughput.SLIDE_MS}ms, start: 0}}\n")
    root = str(work / "lake")
    if mode == "connect":
        found, _ = Lakehouse(root).start_server()
        lake = Lakehouse(root, remote=found.url)
    else:
        lake = Lakehouse(root)
    try:
        lake.init()
        lake.create_views([work / "view.yaml"])
        samples = []
        for index in range(fill + closes):
            path = work / "files" / f"items_{index:03d}.jsonl"
            throughput.write_file(path, n, index, seed)
            t0 = time.perf_counter()
            lake.ingest("s", [path])
            t1 = time.perf_counter()
            closed = lake.slide("v", until=(index + 1) * throughput.SLIDE_MS)
            t2 = time.perf_counter()
            if index >= fill:
                samples.append({"ingest": t1 - t0, "slide": t2 - t1, "derived": closed[-1].derived})
        return {k: statistics.median(s[k] for s in samples) for k in samples[0]}
    finally:
        if mode == "connect":
            # the client closed first: pyspark's exit hook would otherwise call the stopped
            # server, and retry for minutes before the process may end
            lake.spark.stop()
            Lakehouse(root).stop_server()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,10000", help="items per slide, comma-separated")
    p.add_argument("--closes", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # mode size: run in this process
    args = p.parse_args(argv)
    if args.one:
        work = Path(tempfile.mkdtemp(prefix="reasonlake-bench-connect-"))
        print(json.dumps(worker(args.one[0], work, int(args.one[1]), args.closes, args.seed)))
        return 0
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        got = {}
        for mode in ("classic", "connect"):
            run = subprocess.run([sys.executable, __file__, "--one", mode, str(n), "--closes", str(args.closes),
                                  "--seed", str(args.seed)], capture_output=True, text=True)
            if run.returncode:
                raise SystemExit(f"{mode} {n}: exit {run.returncode}\n{run.stderr[-3000:]}")
            got[mode] = json.loads(run.stdout.strip().splitlines()[-1])
        rows.append((n, got))
    print(f"{'items a slide':>13} {'ingest classic':>15} {'ingest connect':>15} {'slide classic':>14} "
          f"{'slide connect':>14} {'slide ratio':>12} {'derived':>8}")
    for n, got in rows:
        a, b = got["classic"], got["connect"]
        print(f"{n:>13} {a['ingest']:>15.2f} {b['ingest']:>15.2f} {a['slide']:>14.2f} {b['slide']:>14.2f} "
              f"{b['slide'] / a['slide']:>12.2f} {b['derived']:>8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
