"""Throughput at volume: files landing, an ingest and a slide per close, beside `reasonable`
closing the same window from scratch.

The scenario: a class hierarchy of 64 leaf classes under 8 classes under one, a
sub-property with a domain, a transitive property. A JSONL file of N items lands every 10 s
of event time; the view's window is 30 s wide and slides by 10 s (3 slides a window). Half
the items type an entity with a leaf class, a quarter link two entities by the
sub-property, a quarter by the transitive property, along short chains (so the closure
grows with the window, not with its square); one item in ten is about an entity of an
earlier file, so facts are renewed as well as derived and expired.

Per (profile, N): the window is filled (3 files, untimed), then ``--closes`` files are
ingested and slid one by one. Each runs in a process of its own, so peak memory is that
size's. Printed: sustained items/s (N over ingest + slide), the seconds of ingest, expire,
the table read (a close on Spark), admit, rounds, violations and publish
(``REASONLAKE_PROFILE`` steps), Spark jobs per close, peak memory of the Python driver and
the JVM, and `reasonable` (Rust, OWL 2 RL) loading and closing the last window's items from
scratch. Medians over the measured closes.

    python bench/throughput.py --quick                  # 10k items a slide, rdfs-plus
    python bench/throughput.py                          # 10k, 100k, 200k; rdfs-plus and owl2rl
    python bench/throughput.py --sizes 1000000 --profiles rdfs-plus
    python bench/throughput.py --runner --sizes 10000,200000 --profiles rdfs-plus   # through `reasonlake run`
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SLIDE_MS = 10_000
WIDTH_MS = 30_000
LEAVES, MIDS = 64, 8
EX = "http://ex.org/"
# "read materialization": a close on Spark reading and checkpointing its table (in its admit)
STEPS = ["ingest", "expire", "read materialization", "admit", "rounds", "violations", "publish"]

TBOX_HEAD = """@prefix ex: <http://ex.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:hasPart rdfs:subPropertyOf ex:relatedTo .
ex:hasPart rdfs:domain ex:Assembly .
ex:partOf a owl:TransitiveProperty .
"""


def tbox() -> str:
    lines = [TBOX_HEAD]
    lines += [f"ex:Mid{m} rdfs:subClassOf ex:Top ." for m in range(MIDS)]
    lines += [f"ex:Leaf{k} rdfs:subClassOf ex:Mid{k % MIDS} ." for k in range(LEAVES)]
    return "\n".join(lines) + "\n"


def write_file(path: Path, n: int, index: int, seed: int) -> list[tuple[str, str, str]]:
    """File ``index``: n items spread over its 10 s of event time; returns its triples."""
    rng = random.Random(seed * 1_000_003 + index)
    base = index * n  # entities of this file: e<base> ... e<base + n>
    triples = []
    t0 = index * SLIDE_MS
    with path.open("w") as out:
        for i in range(n):
            e = base + i
            if i % 10 == 9 and index > 0:  # about an entity of an earlier file
                e = rng.randrange(0, base)
            kind = i % 4
            if kind in (0, 1):
                s, p, o = f"<{EX}e{e}>", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", f"<{EX}Leaf{rng.randrange(LEAVES)}>"
            elif kind == 2:
                s, p, o = f"<{EX}e{e}>", f"<{EX}hasPart>", f"<{EX}e{base + rng.randrange(n)}>"
            else:  # chains of 4 within a file: e partOf e+1 (e not at a chain end)
                e = base + i
                if e % 4 == 3:
                    e -= 1
                s, p, o = f"<{EX}e{e}>", f"<{EX}partOf>", f"<{EX}e{e + 1}>"
            ts = t0 + 1 + (i * (SLIDE_MS - 1)) // n
            out.write(json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n")
            triples.append((s, p, o))
    return triples


def jobs_in(sc, group: str) -> int:
    return len(sc.statusTracker().getJobIdsForGroup(group))


def peak_mb(spark) -> tuple[float, float]:
    import resource

    py = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        with open(f"/proc/{pid}/status") as handle:
            hwm = next(line for line in handle if line.startswith("VmHWM:"))
        return py, int(hwm.split()[1]) / 1024
    except Exception:  # not Linux
        return py, float("nan")


def time_reasonable(triples, work: Path) -> tuple[float, float, int]:
    """reasonable closing the window's items from scratch: (load s, reason s, triples out)."""
    import reasonable

    path = work / "window.ttl"  # N-Triples lines are Turtle (its loader reads ttl and n3)
    with path.open("w") as out:
        out.write(tbox_as_nt())
        for s, p, o in triples:
            out.write(f"{s} {p} {o} .\n")
    t0 = time.perf_counter()
    reasoner = reasonable.PyReasoner()
    reasoner.load_file(str(path))
    t1 = time.perf_counter()
    out = reasoner.reason()
    return t1 - t0, time.perf_counter() - t1, len(out)


def tbox_as_nt() -> str:
    from rdflib import Graph

    return Graph().parse(data=tbox(), format="turtle").serialize(format="nt")


def new_home(work: Path, profile: str, files: str):
    """A fresh home under ``work`` with the scenario's view ``v``, and the folder ``files``."""
    from reasonlake.api import Lakehouse

    shutil.rmtree(work, ignore_errors=True)
    (work / files).mkdir(parents=True)
    (work / "tbox.ttl").write_text(tbox())
    (work / "view.yaml").write_text(
        f"name: v\nstream: s\nontology: [tbox.ttl]\nprofile: {profile}\n"
        f"window: {{width: {WIDTH_MS}ms, slide: {SLIDE_MS}ms, start: 0}}\n")
    lake = Lakehouse(str(work / "lake"))
    lake.init()
    lake.create_views([work / "view.yaml"])
    return lake


def run_one(profile: str, n: int, closes: int, work: Path, seed: int, *, fingerprint: bool = False,
            peer: bool = True) -> dict:
    """One (profile, size) in this process: fill the window, then measure ``closes`` closes.
    ``fingerprint``: also the view's rows at the last close (how many, and a hash of their
    decoded subject, predicate, object and origin, which any backend gives alike)."""
    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "8g")
    from reasonlake.engine.process import timing

    lake = new_home(work, profile, "files")
    sc = lake.spark.sparkContext
    window: list[list] = []
    samples = []
    fill = WIDTH_MS // SLIDE_MS
    for index in range(fill + closes):
        path = work / "files" / f"items_{index:03d}.jsonl"
        window.append(write_file(path, n, index, seed))
        window = window[-fill:]
        group = f"close-{index}"
        sc.setJobGroup(group, group)
        with timing.recorded() as seconds:
            t0 = time.perf_counter()
            with timing.step("ingest"):
                lake.ingest("s", [path])
            t1 = time.perf_counter()
            published = lake.slide("v", until=(index + 1) * SLIDE_MS)
            t2 = time.perf_counter()
        if index < fill:
            continue
        record = published[-1]
        samples.append({
            "ingest_s": t1 - t0, "slide_s": t2 - t1, "close_s": t2 - t0,
            "jobs": jobs_in(sc, group), "admitted": record.admitted, "derived": record.derived,
            "renewed": record.renewed, "expired": record.expired, "rounds": record.rounds,
            **{f"{k}_s": seconds.get(k, 0.0) for k in STEPS},
        })
    py, jvm = peak_mb(lake.spark)
    nan = float("nan")
    load_s, reason_s, out_triples = (time_reasonable([t for f in window for t in f], work) if peer
                                     else (nan, nan, 0))
    result = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
    result["close_max_s"] = max(s["close_s"] for s in samples)
    if fingerprint:
        from pyspark.sql import functions as F

        found = lake.view("v").agg(F.count("*").alias("rows"), F.sum(F.xxhash64(  # a decimal: a sum of longs overflows
            "subject", "predicate", "object", "origin").cast("decimal(38,0)")).cast("string").alias("hash")).first()
        result.update(view_rows=found.rows, fingerprint=f"{found.rows}:{found.hash}")
    result.update(profile=profile, n=n, closes=closes, peak_py_mb=py, peak_jvm_mb=jvm,
                  reasonable_load_s=load_s, reasonable_reason_s=reason_s, reasonable_triples=out_triples,
                  window_items=n * fill, load=os.getloadavg()[0])
    lake.spark.stop()
    return result


def run_runner(profile: str, n: int, closes: int, work: Path, seed: int) -> dict:
    """The same scenario through the streaming runner (``reasonlake run`` with a 1 s trigger):
    files land in its source folder one at a time; each full file is followed by a small one
    whose items stay inside the open pane, a micro-batch with nothing to close. Measured per
    batch from the runner's own progress: seconds, files, closes."""
    import threading

    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "8g")
    from reasonlake.engine.jobs import runner

    lake = new_home(work, profile, "staging")
    source = work / "incoming"
    source.mkdir()
    batches: list[dict] = []
    seen = threading.Condition()

    def progress(batch_id, report, seconds):
        with seen:
            batches.append({"files": report.files, "closes": sum(report.closes.values()), "seconds": seconds})
            seen.notify_all()

    failed: list[BaseException] = []

    def serve():
        try:
            runner.run(lake.home, ["v"], str(source), trigger="1 second", progress=progress)
        except BaseException as exc:  # stopped by the main thread, or a failure
            failed.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def land(name: str, write) -> dict:
        staged = work / "staging" / name
        write(staged)
        landed = time.perf_counter()
        files_before = batches[-1]["files"] if batches else 0
        staged.rename(source / name)  # atomic: the runner never sees half a file
        with seen:
            while not (batches and batches[-1]["files"] > files_before) and not failed:
                seen.wait(timeout=1)
        if failed:
            raise failed[0]
        return {**batches[-1], "landed_to_done_s": time.perf_counter() - landed}

    fill = WIDTH_MS // SLIDE_MS
    full, quiet = [], []
    for index in range(fill + closes):
        got = land(f"items_{index:03d}.jsonl", lambda path: write_file(path, n, index, seed))
        if index >= fill:
            full.append(got)
        # 100 items inside the pane still open (its close comes with the next full file)
        end = (index + 1) * SLIDE_MS - 1

        def small(path, end=end):
            with path.open("w") as out:
                for i in range(100):
                    out.write(json.dumps({"s": f"<{EX}q{index}_{i}>", "p": f"<{EX}hasPart>",
                                          "o": f"<{EX}q{index}_{i + 1}>", "ts": end - i}) + "\n")
        before = batches[-1]["closes"]
        got = land(f"quiet_{index:03d}.jsonl", small)
        if index >= fill:
            assert got["closes"] == before, "a quiet batch processed a close"
            quiet.append(got)
    for query in lake.spark.streams.active:
        query.stop()
    thread.join(timeout=60)
    py, jvm = peak_mb(lake.spark)
    print("batch seconds, full:", [round(r["seconds"], 2) for r in full],
          "quiet:", [round(r["seconds"], 2) for r in quiet], file=sys.stderr)
    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
    return {"profile": profile, "n": n, "closes": closes, "batch_s": med(full, "seconds"),
            "landed_s": med(full, "landed_to_done_s"), "quiet_batch_s": med(quiet, "seconds"),
            "quiet_landed_s": med(quiet, "landed_to_done_s"),
            "batch_max_s": max(r["seconds"] for r in full), "quiet_max_s": max(r["seconds"] for r in quiet),
            "peak_py_mb": py, "peak_jvm_mb": jvm,
            "load": os.getloadavg()[0]}


def runner_table(results: list[dict]) -> str:
    head = ["profile", "items/file", "items/s (landed to done)", "batch s", "batch max s", "landed to done s",
            "quiet batch s", "quiet batch max s", "quiet landed to done s", "peak JVM MB", "load avg"]
    rows = [[r["profile"], f"{r['n']:,}", fmt(r["n"] / r["landed_s"], 0), fmt(r["batch_s"]), fmt(r["batch_max_s"]),
             fmt(r["landed_s"]), fmt(r["quiet_batch_s"]), fmt(r["quiet_max_s"]), fmt(r["quiet_landed_s"]),
             fmt(r["peak_jvm_mb"], 0), fmt(r["load"], 1)]
            for r in results]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def fmt(x, digits=2) -> str:
    return "nan" if x != x else f"{x:,.{digits}f}"


def table(results: list[dict]) -> str:
    head = ["profile", "items/slide", "items/s", "close s", "close max s", "ingest s", "expire s", "read s",
            "admit s", "rounds s", "viol. s", "publish s", "jobs/close", "peak py MB", "peak JVM MB", "reasonable s (load+reason)",
            "× vs reasonable", "load avg"]
    rows = []
    for r in results:
        peer = r["reasonable_load_s"] + r["reasonable_reason_s"]
        rows.append([r["profile"], f"{r['n']:,}", fmt(r["n"] / r["close_s"], 0), fmt(r["close_s"]),
                     fmt(r.get("close_max_s", float("nan"))),
                     fmt(r["ingest_s"]), fmt(r["expire_s"]), fmt(r.get("read materialization_s", float("nan"))),
                     fmt(r["admit_s"]), fmt(r["rounds_s"]),
                     fmt(r["violations_s"]), fmt(r["publish_s"]), f"{r['jobs']:.0f}", fmt(r["peak_py_mb"], 0),
                     fmt(r["peak_jvm_mb"], 0), f"{fmt(peer)} ({fmt(r['reasonable_load_s'])}+{fmt(r['reasonable_reason_s'])})",
                     fmt(peer / r["close_s"], 1), fmt(r["load"], 1)])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def plot(path: Path, results: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for profile in sorted({r["profile"] for r in results}):
        rs = sorted((r for r in results if r["profile"] == profile), key=lambda r: r["n"])
        ax.plot([r["n"] for r in rs], [r["n"] / r["close_s"] for r in rs], "o-", label=f"reasonlake {profile} (ingest + slide)")
        ax.plot([r["n"] for r in rs], [r["window_items"] / (r["reasonable_load_s"] + r["reasonable_reason_s"]) for r in rs],
                "s--", label=f"reasonable from scratch ({profile} window)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("items per slide (window = 3 slides)")
    ax.set_ylabel("items per second")
    ax.set_title("Sustained throughput")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000,200000", help="items per slide, comma-separated")
    p.add_argument("--profiles", default="rdfs-plus,owl2rl")
    p.add_argument("--closes", type=int, default=3, help="measured closes per size (after the window fills)")
    p.add_argument("--quick", action="store_true", help="10k items a slide, rdfs-plus, 2 closes")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=here / "out")
    p.add_argument("--runner", action="store_true",
                   help="through the streaming runner (reasonlake run, 1 s trigger): batch seconds, and a "
                        "micro-batch with nothing to close")
    p.add_argument("--one", help=argparse.SUPPRESS)  # profile:size, run in this process
    p.add_argument("--fingerprint", action="store_true", help=argparse.SUPPRESS)  # with --one (bench/scale.py)
    p.add_argument("--no-peer", action="store_true", help=argparse.SUPPRESS)  # with --one: no reasonable
    args = p.parse_args(argv)
    work = args.out / "throughput-work"
    if args.one:
        profile, n = args.one.split(":")
        where = work / f"{profile}_{n}"
        found = (run_runner(profile, int(n), args.closes, where, args.seed) if args.runner else
                 run_one(profile, int(n), args.closes, where, args.seed, fingerprint=args.fingerprint,
                         peer=not args.no_peer))
        print(json.dumps(found))
        return 0
    if args.quick:
        args.sizes, args.profiles, args.closes = "10000", "rdfs-plus", 2
    results = []
    for profile in args.profiles.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, __file__, "--one", f"{profile}:{n}", "--closes", str(args.closes),
                                   "--seed", str(args.seed), "--out", str(args.out)]
                                  + (["--runner"] if args.runner else []),
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{profile} {n:,}: failed\n{done.stderr[-3000:]}", file=sys.stderr)
                continue
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
            took = results[-1]["landed_s" if args.runner else "close_s"]
            print(f"{profile} {n:,} items a slide: {took:.2f} s a close "
                  f"({time.perf_counter() - t0:.0f} s with set-up)", file=sys.stderr, flush=True)
    if not results:
        return 1
    if args.runner:
        print(f"\nStreaming runner: medians over {args.closes} closes after the window filled "
              f"(trigger 1 s; a quiet batch is 100 items inside the open pane; {os.cpu_count()} cores)")
        print(runner_table(results))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "throughput.json").write_text(json.dumps(results, indent=1))
    plot(args.out / "throughput.png", results)
    print(f"\nThroughput: medians over {args.closes} closes after the window filled "
          f"(window {WIDTH_MS // 1000} s, slide {SLIDE_MS // 1000} s; {os.cpu_count()} cores)")
    print(table(results))
    print(f"wrote {args.out / 'throughput.json'} and {args.out / 'throughput.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
