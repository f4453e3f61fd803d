"""What newest-wins repair costs a slide: with no conflicts, and with conflicts.

One synthetic sensor stream: every item is a fresh observation ``:o_j :reading :low`` or
``:high`` (``:reading`` is functional; ``:Low``/``:High`` are ``owl:hasValue`` classes,
disjoint, ``:Low ⊑ :Alert``), one item per millisecond, so a window of width ω holds
N = ω items and a slide β = ω/100 changes 1% of it. After the first close, the *conflict*
stream replaces some fresh observations by contradicting readings of observations still in
the window (``:o_j :reading :high`` when ``:o_j :reading :low`` is there): each is a
conflict set of two items, the older one loses, and what it derived (``:o_j a :Low, :Alert``)
leaves by delete and re-derive. ``--conflicts`` is the share of the window's items that are
in a conflict at each slide (2 items per contradicting reading).

Three views, each filled by ``rebuild`` at the first close, then slid ``--slides`` closes:

- ``plain``: repair none, conflict-free stream (the baseline);
- ``repair``: repair newest-wins, the same conflict-free stream (the repair step's cost);
- ``conflicts``: repair newest-wins, the conflict stream.

Prints the median slide time of each, the two ratios the issue sets targets for
(repair/plain < 1.2, conflicts/repair < 2) and writes ``repair.csv`` to ``--out``. With
``--check`` the last close of the conflict view is compared with a rebuild.

    python bench/repair.py                      # 1M-triple window, 3 slides
    python bench/repair.py --items 100000       # a shorter run
    python bench/repair.py --quick              # a smoke run (10k items)
"""
from __future__ import annotations

import argparse
import csv
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

EX = "http://ex/"
TBOX = """@prefix ex: <http://ex/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:reading a owl:FunctionalProperty .
ex:Low owl:equivalentClass [ a owl:Restriction ; owl:onProperty ex:reading ; owl:hasValue ex:low ] .
ex:High owl:equivalentClass [ a owl:Restriction ; owl:onProperty ex:reading ; owl:hasValue ex:high ] .
ex:Low owl:disjointWith ex:High .
ex:Low rdfs:subClassOf ex:Alert .
"""


def generate(folder: Path, stream: str, items: int, slides: int, conflicts: float, seed: int,
             lines_per_file: int = 200_000) -> list[Path]:
    """Items at ts = 1..N + slides·β. With conflicts > 0, each slide after the first close
    holds N·conflicts/2 contradicting readings of observations still in the window."""
    rng = random.Random(seed)
    width, slide = items, max(1, items // 100)
    total = width + slides * slide
    flips_per_slide = int(items * conflicts / 2)
    value = {}  # observation -> its reading
    files, out = [], None
    for ts in range(1, total + 1):
        if (ts - 1) % lines_per_file == 0:
            if out:
                out.close()
            files.append(folder / f"{stream}_{len(files):03d}.jsonl")
            out = files[-1].open("w")
        in_slide = (ts - width - 1) % slide if ts > width else None
        if in_slide is not None and in_slide < flips_per_slide:
            # contradict an observation still inside the window at the close of this slide
            close = width + ((ts - width - 1) // slide + 1) * slide
            j = rng.randrange(close - width + 1, ts)
            new = "high" if value.get(j) == "low" else "low"
            out.write(f'{{"s": "<{EX}o{j}>", "p": "<{EX}reading>", "o": "<{EX}{new}>", "ts": {ts}}}\n')
            continue
        value[ts] = rng.choice(("low", "high"))
        out.write(f'{{"s": "<{EX}o{ts}>", "p": "<{EX}reading>", "o": "<{EX}{value[ts]}>", "ts": {ts}}}\n')
    if out:
        out.close()
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1_000_000, help="window triples (default 1M)")
    parser.add_argument("--slides", type=int, default=3)
    parser.add_argument("--conflicts", type=float, default=0.01, help="share of window items in conflict per slide")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--check", action="store_true", help="compare the conflict view with a rebuild")
    parser.add_argument("--out", default="bench/out")
    parser.add_argument("--work", default="/tmp/reasonlake-bench-repair")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--views", default="plain,repair,conflicts",
                        help="which views to run (default all three; the ratios need all three)")
    args = parser.parse_args(argv)
    if args.quick:
        args.items, args.slides = 10_000, 2

    from reasonlake.api import Lakehouse
    from reasonlake.engine.reads import read

    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "data").mkdir(parents=True)
    (work / "o.ttl").write_text(TBOX)
    width, slide = args.items, max(1, args.items // 100)
    views = {"plain": ("free", "none"), "repair": ("free", "newest-wins"), "conflicts": ("conf", "newest-wins")}
    views = {name: spec for name, spec in views.items() if name in args.views.split(",")}
    for name, (stream, policy) in views.items():
        (work / f"{name}.yaml").write_text(
            f"name: {name}\nstream: {stream}\nontology: [o.ttl]\nprofile: owl2rl\nrepair: {policy}\n"
            f"window: {{width: {width}ms, slide: {slide}ms, start: 0}}\n"
        )
    lake = Lakehouse(str(work / "lake"))
    lake.init()
    lake.create_views([work / f"{n}.yaml" for n in views])
    started = time.perf_counter()
    streams = {stream for stream, _ in views.values()}
    for stream, conflicts in (("free", 0.0), ("conf", args.conflicts)):
        if stream in streams:
            files = generate(work / "data", stream, args.items, args.slides, conflicts, args.seed)
            lake.ingest(stream, files)
    print(f"generated and ingested {len(streams)} streams of {args.items + args.slides * slide:,} items in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)

    fills = {}
    for name in views:
        t = time.perf_counter()
        lake.rebuild(name, at=width)
        fills[name] = time.perf_counter() - t
    # The views take turns at every close, so a slow spell of the machine hits all of them.
    walls, engine, removed = ({name: [] for name in views} for _ in range(3))
    for k in range(1, args.slides + 1):
        for name in views:
            t = time.perf_counter()
            done = lake.slide(name, until=width + k * slide)
            walls[name].append(time.perf_counter() - t)
            engine[name].append(sum(r.seconds for r in done))
            removed[name].append(sum(r.repairs or 0 for r in done))
    rows = []
    for name in views:
        rows.append(dict(view=name, window=args.items, slide=slide, fill_s=round(fills[name], 2),
                         slide_s=round(statistics.median(walls[name]), 2),
                         engine_s=round(statistics.median(engine[name]), 2),
                         removed_per_slide=round(statistics.median(removed[name]))))
        print(f"{name}: fill {fills[name]:.1f} s, slides {', '.join(f'{w:.1f}' for w in walls[name])} s, "
              f"removed {removed[name]}", file=sys.stderr)
    match = None
    if args.check and "conflicts" in views:
        before = read.facts(lake.home, "conflicts").select("s", "p", "o", "origin").localCheckpoint()
        lake.rebuild("conflicts", at=width + args.slides * slide)
        after = read.facts(lake.home, "conflicts").select("s", "p", "o", "origin")
        match = before.exceptAll(after).isEmpty() and after.exceptAll(before).isEmpty()

    by = {r["view"]: r for r in rows}
    print(f"\nwindow {args.items:,} triples, slide {slide:,} items (1%), conflicts {args.conflicts:.1%} of the window per slide\n")
    print(f"{'view':<10} {'fill s':>8} {'slide s (median)':>17} {'engine s':>9} {'removed/slide':>14}")
    for r in rows:
        print(f"{r['view']:<10} {r['fill_s']:>8.2f} {r['slide_s']:>17.2f} {r['engine_s']:>9.2f} {r['removed_per_slide']:>14,}")
    if "repair" in by and "plain" in by:
        overhead = by["repair"]["slide_s"] / by["plain"]["slide_s"]
        print(f"\nrepair step, no conflicts: {overhead:.2f}x a plain slide (target < 1.20)")
    if "conflicts" in by and "repair" in by:
        burden = by["conflicts"]["slide_s"] / by["repair"]["slide_s"]
        print(f"with conflicts: {burden:.2f}x the conflict-free repaired slide (target < 2.00)")
    if "conflicts" in by and "plain" in by:
        print(f"with conflicts: {by['conflicts']['slide_s'] / by['plain']['slide_s']:.2f}x a plain slide")
    if match is not None:
        print(f"conflict view slid == rebuild: {match}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "repair.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0 if match in (None, True) else 1


if __name__ == "__main__":
    sys.exit(main())
