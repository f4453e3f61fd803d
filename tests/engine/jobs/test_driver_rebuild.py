"""A rebuild whose window fits the driver runs there (``rebuild._in_driver``): no Spark job
from the events read to the close's record where it finds no violation (the violations
table is written through Spark, as a close's are), and the same table, violations and
history entry as the rebuild through Spark; the slides after it go on alike."""
from __future__ import annotations

from pyspark.sql import functions as F

from tests.cli.helpers import TYPE, ex, jsonl
from tests.conftest import write

PREFIXES = ("@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
# derivations through a restriction (an internal term), a background fact, and a
# disjointness that the stream breaks (a violation to record)
ONTOLOGY = PREFIXES + (":Parent owl:equivalentClass [ a owl:Restriction ; owl:onProperty :hasChild ; "
                       "owl:someValuesFrom :Person ] .\n:hasChild rdfs:range :Person .\n"
                       ":Person rdfs:subClassOf :Agent .\n")
DISJOINT = ":Agent owl:disjointWith :Robot .\n"


def _jobs(spark, every: bool = False) -> dict[int, str]:
    """Spark's jobs so far (the most recent ones: the UI keeps a bounded list), by id, but
    (unless ``every``) those building a table's file list ahead for the next close (``file_list``)."""
    from reasonlake.engine.store import file_list

    store = spark.sparkContext._jsc.sc().statusStore()
    found, it = {}, store.jobsList(None).iterator()
    while it.hasNext():
        job = it.next()
        if not every and job.jobGroup().isDefined() and job.jobGroup().get() == file_list.JOB_GROUP:
            continue
        found[job.jobId()] = str(job.description().get()) if job.description().isDefined() else str(job.name())
    return found


def _same(a, b, what: str):
    extra, missing = a.exceptAll(b), b.exceptAll(a)
    assert extra.isEmpty() and missing.isEmpty(), (
        f"{what}: only the driver's rebuild {extra.collect()}\nonly Spark's {missing.collect()}")


def test_a_rebuild_in_the_driver_runs_no_spark_job_and_equals_the_rebuild_through_spark(
        cli, spark, tmp_path, monkeypatch):
    from reasonlake.engine.reads import read
    from reasonlake.engine.reason import budget
    from reasonlake.engine.store import file_list, session_marks, state
    from reasonlake.engine.store import violations_table as viol
    from reasonlake.engine.store.home import Home

    write(tmp_path / "o.ttl", ONTOLOGY + DISJOINT)
    write(tmp_path / "quiet.ttl", ONTOLOGY)
    write(tmp_path / "bg.ttl", PREFIXES + ":carol a :Person .\n")
    for name, ontology in (("driver", "o"), ("spark", "o"), ("quiet", "quiet")):
        write(tmp_path / f"{name}.yaml", f"name: {name}\nstream: s\nontology: [{ontology}.ttl]\nprofile: owl2rl\n"
              "background: [bg.ttl]\nwindow: {width: 3s, slide: 1s, start: -3000}\n")
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex("ann"), ex("hasChild"), ex("bob"), t) for t in range(500, 7001, 1000)]
    events += [(ex(f"p{t}"), ex("hasChild"), ex(f"c{t}"), t) for t in range(700, 7001, 1500)]
    events += [(ex("bob"), TYPE, ex("Robot"), 4200), (ex("c3700"), TYPE, ex("Robot"), 5100)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for name in ("driver", "spark", "quiet"):
        cli("slide", name, "--until", "6000")
    home = Home(spark=spark, root=str(cli.home))
    assert viol.count_live(home, "driver", 6000) > 0, "the stream was meant to break the disjointness"
    assert viol.count_live(home, "quiet", 6000) == 0

    file_list.settle(spark, home.mat_path("quiet"))  # what the last slide left building
    last = max(_jobs(spark), default=-1)
    cli("rebuild", "quiet")
    file_list.settle(spark, home.mat_path("quiet"))
    ran = {i: what for i, what in _jobs(spark).items() if i > last}
    assert not ran, f"the rebuild of a window that fits the driver ran Spark jobs: {ran}"
    assert f"{ex('bob')} {TYPE} {ex('Agent')} ." in cli("export", "quiet")

    cli("rebuild", "driver")
    monkeypatch.setattr(budget, "LOCAL_ROWS", 0)  # the same rebuild through Spark
    cli("rebuild", "spark")
    monkeypatch.undo()

    def table(path):
        return spark.read.format("delta").load(path)

    _same(table(home.mat_path("driver")), table(home.mat_path("spark")), "the table")
    def violations(view):  # a map cannot be compared by set operations: its entries, sorted
        return table(viol.path(home, view)).withColumn("bindings", F.array_sort(F.map_entries("bindings")))

    _same(violations("driver"), violations("spark"), "the violations")
    for name in ("driver", "spark"):
        last = spark.sql(f"DESCRIBE HISTORY delta.`{home.mat_path(name)}` LIMIT 1").first()
        assert (last.operation, last.userMetadata) == ("WRITE", session_marks.rebuild_mark(6000)), (name, last)
        assert last.operationParameters["mode"] == "Overwrite", (name, last.operationParameters)
    records = {name: state.lineage(home, name)[-1] for name in ("driver", "spark")}
    same = ("close", "mode", "admitted", "derived", "rounds", "violations")
    assert [getattr(records["driver"], f) for f in same] == [getattr(records["spark"], f) for f in same]

    for close in (7000,):  # the slide after it goes on from the rebuilt table alike
        for name in ("driver", "spark"):
            cli("slide", name, "--until", str(close))
        _same(read.facts(home, "driver", close=close), read.facts(home, "spark", close=close), f"close {close}")

    # A close in the driver publishes its panes by delta-rs (decision 0047): it needs no
    # file list of Delta's, so none is built ahead for it, and it runs no Spark job at all.
    from reasonlake.engine.store import process_cache

    cli("slide", "quiet", "--until", "7000")
    file_list.settle(spark, home.mat_path("quiet"))
    last = max(_jobs(spark, every=True), default=-1)
    cli("slide", "quiet", "--until", "8000")
    assert home.mat_path("quiet") not in process_cache.of(spark).file_lists, "a file list built for a driver close"
    ran = {i: what for i, what in _jobs(spark, every=True).items() if i > last}
    assert not ran, f"a close in the driver ran Spark jobs: {ran}"
    assert state.lineage(home, "quiet")[-1].close == 8000
    last = spark.sql(f"DESCRIBE HISTORY delta.`{home.mat_path('quiet')}` LIMIT 1").first()
    assert last.operation == "WRITE", last  # the close's panes, written by delta-rs
