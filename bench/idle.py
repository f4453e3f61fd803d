"""A close with nothing new: what a slide costs when no item arrives and none expires.

A scheduled job or the streaming runner closes windows whether or not anything landed; such
a close should cost little whatever the window holds. The stream is the IMaRS one
(``bench/imars.py``: threads of posts over the transitive ``ex:discuss``), N items at
1 ms apart; the view's window is far wider than the stream and slides by 1 s, so after the
close that takes the last item every close admits nothing and expires nothing. Per window
size: a ``rebuild`` at that close fills the view, then ``--closes`` single-close ``slide``
calls in the same warm process (as a multi-close slide or the runner makes them) are timed,
wall clock of the API call and the engine's own seconds. Medians.

    python bench/idle.py                       # 10k and 1M items
    python bench/idle.py --sizes 1000 --closes 3
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from imars import STREAM, TBOX, generate_stream  # noqa: E402  (the same stream)

SLIDE_MS = 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--closes", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = parser.parse_args()

    work = args.out.resolve() / "idle-work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "views").mkdir(parents=True)
    (work / "views" / "discuss.ttl").write_text(TBOX)
    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "12g")
    from reasonlake.api import Lakehouse

    lake = Lakehouse(str(work / "lake"))
    lake.init()
    rows = []
    for n in args.sizes:
        stream = f"{STREAM}{n}"
        (work / stream).mkdir()
        files = generate_stream(work / stream, n, 1, 300, 7, 200_000)
        lake.ingest(stream, files)
        name = f"idle_{n}"
        first = -(-(n + 1) // SLIDE_MS) * SLIDE_MS  # the first close after the last item
        # the window is ten times the stream and its first close is ``first``: nothing
        # leaves it while the closes are timed
        width = 10 * (first + SLIDE_MS * (args.closes + 2))
        view = work / "views" / f"{name}.yaml"
        view.write_text(f"name: {name}\nstream: {stream}\nontology: [discuss.ttl]\nprofile: rdfs-plus\n"
                        f"window: {{width: {width}ms, slide: {SLIDE_MS}ms, start: {first - width}}}\n")
        lake.create_views([view])
        lake.rebuild(name, at=first)
        lake.slide(name, until=first + SLIDE_MS)  # untimed: the first slide after a rebuild
        walls, engines = [], []
        for k in range(args.closes):
            started = time.perf_counter()
            published = lake.slide(name, until=first + (k + 2) * SLIDE_MS)
            walls.append(time.perf_counter() - started)
            engines.append(sum(p.seconds for p in published))
            assert [p.admitted for p in published] == [0], published
        rows.append((n, statistics.median(walls), statistics.median(engines), max(walls), os.getloadavg()[0]))
        print(f"{n:,} items: close walls {' '.join(f'{w:.2f}' for w in walls)}", flush=True)

    print("\nA close with nothing new (no item admitted, none expired), median of "
          f"{args.closes} in a warm process")
    print(f"{'window items':>12} {'wall s':>7} {'engine s':>8} {'max wall s':>10} {'load':>5}")
    for n, wall, engine, worst, load in rows:
        print(f"{n:>12,} {wall:>7.2f} {engine:>8.2f} {worst:>10.2f} {load:>5.1f}")


if __name__ == "__main__":
    main()
