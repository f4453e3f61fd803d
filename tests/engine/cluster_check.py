"""Generated owl2rl cases slid on the Spark master given, on both backends, each close
compared with owlrl's closure (origins included): run by ``test_local_cluster`` in a process
of its own, since a process holds one Spark session.

    python -m tests.engine.cluster_check MASTER WORK_DIR

Prints one line per backend and close checked; exits 1 with the differences if any."""
from __future__ import annotations

import os
import sys
from pathlib import Path

CASES = 8
SHAPE = (3000, 1000)


def check(master: str, work: Path) -> list[str]:
    os.environ["REASONLAKE_SPARK_MASTER"] = master
    from reasonlake.api import Lakehouse
    from tests.engine import packed
    from tests.engine.paths import evaluation_path

    lake = Lakehouse(str(work / "lake"))
    lake.init()
    problems = []
    cases = packed.generate("owl2rl", CASES, shapes=(SHAPE,))
    for backend in ("driver", "spark", "neighbourhood"):
        with evaluation_path(backend):
            views = packed.start(lake, work / backend, cases, "owl2rl", f"cluster_{backend}",
                                 "unique_names: true\n")
            view = views[SHAPE]
            late_in = False
            for close, _ in packed.closes(cases):
                if packed.late_due(cases, close) and not late_in:
                    packed.ingest_late(lake, work / backend, views)
                    late_in = True
                # read through Spark: its executors (other JVMs here) read the table too
                problems += [f"{backend} {close}: {p}" for p in packed.table_problems(
                    lake, view, lake.slide(view, until=close), through_spark=True)]
                got = packed.view_rows(lake, view, close, through_spark=True)
                for c in cases:
                    want = packed.expected(c, packed.window(c, close), "owl2rl", frozenset({"fp"}))
                    have = dict(got.get(c.number, {}))
                    have = {line: origin for line, origin in have}
                    if have != want:
                        problems.append(f"{backend} close {close} case {c.number}: extra {sorted(have.keys() - want.keys())}, "
                                        f"missing {sorted(want.keys() - have.keys())}, origins "
                                        f"{ {k: (have[k], want[k]) for k in have.keys() & want.keys() if have[k] != want[k]} }")
                print(f"{backend} close {close} checked", flush=True)
    problems += check_ingest(lake.spark, work)
    problems += check_event_patterns(lake.spark, work)
    problems += check_derived_intervals(lake.spark, work)
    executors = lake.spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    if master.startswith("local-cluster") and executors < 1:
        problems.append(f"no executor JVM registered under {master}")
    print(f"executors: {executors}", flush=True)
    return problems


def check_ingest(spark, work: Path) -> list[str]:
    """A folder of every line format ingested by URI (parsed in the executors' JVMs and
    Python workers) gives the events and quarantine rows the driver's reading gives, and the
    runner over a folder the tables of `ingest` + `slide`."""
    from tests.conftest import write
    from tests.engine.ingest import test_ingest_anywhere as anywhere
    from tests.engine.jobs import test_runner as runner

    problems = []
    write(work / "v.ttl", anywhere.TBOX)
    write(work / "v.yaml", anywhere.VIEW)
    folder = anywhere._corpus(work / "corpus")
    by_driver, by_uri = anywhere._lake(spark, work, "ingest_driver"), anywhere._lake(spark, work, "ingest_uri")
    by_driver.ingest("s", [folder], ts=500)
    by_uri.ingest("s", [folder.as_uri()], ts=500)
    for a, b, what in zip(anywhere._tables(by_driver), anywhere._tables(by_uri), ("events", "quarantine")):
        if not (a.exceptAll(b).isEmpty() and b.exceptAll(a).isEmpty()):
            problems.append(f"ingest by URI: {what} differ from the driver's")
    write(work / "run" / "v.ttl", runner.TBOX)
    write(work / "run" / "v.yaml", runner.VIEW)
    incoming = work / "run" / "incoming"
    for n in (1, 2, 3):
        runner.batch_files(incoming, n)
    ran, reference = runner.lakehouse(spark, work / "run", "ran"), runner.lakehouse(spark, work / "run", "reference")
    report = ran.run(["v"], str(incoming))
    reference.ingest("s", [incoming.resolve().as_uri()])
    reference.slide("v", until=report.newest_event)
    for a, b, what in zip(runner.tables(ran), runner.tables(reference), ("events", "quarantine")):
        if not (a.exceptAll(b).isEmpty() and b.exceptAll(a).isEmpty()):
            problems.append(f"runner: {what} differ from ingest + slide")
    if list(ran.export("v")) != list(reference.export("v")) or not report.closes.get("v"):
        problems.append(f"runner: the view differs from ingest + slide ({report})")
    print(f"ingest and runner checked: {len(problems)} problems", flush=True)
    return problems


def check_event_patterns(spark, work: Path) -> list[str]:
    """An RSEP-QL query consuming what it matched, its window read by Spark (the executors'
    JVMs) and evaluated in two runs: the answers the hand-worked case gives."""
    from reasonlake.api import Lakehouse
    from tests.rspql import test_event_patterns as rsep

    problems = []
    os.environ["REASONLAKE_DRIVER_READ_MB"] = "0"
    try:
        lake = Lakehouse(str(work / "rsep" / "lake"), spark=spark)
        lake.init()
        query, stream = rsep.consuming(work / "rsep", "CHRONOLOGICAL")
        lake.register(query)
        lake.ingest("s", [str(stream)])
        lake.advance("out", until=5000)
        lake.advance("out", until=8000)
        found = rsep.consumed_pairs(work / "rsep" / "lake")
        if found != rsep.CONSUMED["CHRONOLOGICAL"]:
            problems.append(f"event patterns: {sorted(found)}, not {sorted(rsep.CONSUMED['CHRONOLOGICAL'])}")
    finally:
        del os.environ["REASONLAKE_DRIVER_READ_MB"]
    print(f"event patterns checked: {len(problems)} problems", flush=True)
    return problems


def check_derived_intervals(spark, work: Path) -> list[str]:
    """An EP-SPARQL query reading a fact the ontology derives, its view read by Spark (the
    executors' JVMs) and the fact derived over the items collected: ``:a :follows :c`` from
    10 s to 12 s."""
    from reasonlake.api import Lakehouse
    from tests.cli.helpers import jsonl, simple_view
    from tests.query.test_derived_event_intervals import FOLLOWS_ITEMS, FOLLOWS_QUERY
    from tests.rspql.test_event_patterns import EX, TBOX

    here = work / "intervals"
    here.mkdir(parents=True, exist_ok=True)
    os.environ["REASONLAKE_DRIVER_READ_MB"] = "0"
    try:
        lake = Lakehouse(str(here / "lake"), spark=spark)
        lake.init()
        lake.create_views([simple_view(here, name="follows", stream="people", width="1m", slide="30s", tbox=TBOX)])
        lake.ingest("people", [str(jsonl(here / "people.jsonl", FOLLOWS_ITEMS))])
        lake.slide("follows", until=60_000)
        found = sorted(lake.query("follows", FOLLOWS_QUERY).frame.iter_rows())
    finally:
        del os.environ["REASONLAKE_DRIVER_READ_MB"]
    duration = "<http://www.w3.org/2001/XMLSchema#dayTimeDuration>"
    expected = [(f"<{EX}b>", f'"PT0S"^^{duration}'), (f"<{EX}c>", f'"PT2S"^^{duration}')]
    print(f"derived intervals checked: {found}", flush=True)
    return [] if found == expected else [f"derived intervals: {found}, not {expected}"]


if __name__ == "__main__":
    found = check(sys.argv[1], Path(sys.argv[2]))
    for line in found:
        print("PROBLEM", line)
    sys.exit(1 if found else 0)
