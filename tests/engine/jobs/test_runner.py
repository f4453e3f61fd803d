"""The streaming runner over a folder: files arriving between runs are ingested in several
micro-batches, and the views slide after each; the tables equal `ingest` + `slide` of the
same files (the kill -9 restart is in tests/cli/test_crash_recovery.py)."""
from __future__ import annotations

import json

import pytest
from tests.conftest import write

EX = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
VIEW = "name: v\nstream: s\nontology: [v.ttl]\nprofile: rdfs-plus\nwindow: {width: 3s, slide: 1s, start: -2000}\n"
TBOX = (
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    f"<{EX}knows> rdfs:domain <{EX}Person> .\n<{EX}Student> rdfs:subClassOf <{EX}Person> .\n"
)


def ex(name: str) -> str:
    return f"<{EX}{name}>"


def batch_files(folder, n: int):
    """File n of the stream: people knowing each other a second apart, and a bad row."""
    rows = [{"s": ex(f"p{n}{i}"), "p": ex("knows"), "o": ex(f"p{n}{i + 1}"), "ts": 1000 * n + 200 * i}
            for i in range(3)]
    rows.append({"s": ex(f"s{n}"), "p": TYPE, "o": ex("Student"), "ts": 1000 * n + 500})
    text = "\n".join(json.dumps(r) for r in rows) + "\n{bad row\n"
    return write(folder / f"part-{n}.jsonl", text)


def tables(lake):
    spark = lake.spark
    events = spark.read.format("delta").load(lake.home.path("events")).drop("ingest_seq")
    bad = spark.read.format("delta").load(lake.home.path("quarantine")).drop("at", "ingest_seq")
    return events, bad


def same(a, b, what):
    extra, missing = a.exceptAll(b), b.exceptAll(a)
    assert extra.isEmpty() and missing.isEmpty(), f"{what}: {extra.collect()[:3]} / {missing.collect()[:3]}"


def lakehouse(spark, root, name):
    from reasonlake.api import Lakehouse

    lake = Lakehouse(str(root / name), spark=spark)
    lake.init()
    lake.create_views([root / "v.yaml"])
    return lake


@pytest.fixture
def root(tmp_path):
    write(tmp_path / "v.ttl", TBOX)
    write(tmp_path / "v.yaml", VIEW)
    return tmp_path


# Three runs and a reference lake: about a minute, so in the slow suite (the default suite
# runs the runner end to end in the lateness test below).
@pytest.mark.slow
@pytest.mark.minutes(3)
def test_runner_over_a_folder_equals_ingest_and_slide(spark, root):
    incoming = root / "incoming"
    incoming.mkdir()
    lake = lakehouse(spark, root, "run")
    for n in (1, 2):
        batch_files(incoming, n)
    first = lake.run(["v"], str(incoming))
    assert (first.files, first.items, first.quarantined) == (2, 8, 2)
    assert first.closes == {"v": 2} and first.last_close == {"v": 2000}, first
    # nothing new: a micro-batch-free run closes nothing
    idle = lake.run(["v"], str(incoming))
    assert (idle.files, sum(idle.closes.values())) == (0, 0), idle
    for n in (3, 4):
        batch_files(incoming, n)
    second = lake.run(["v"], str(incoming))
    assert (second.files, second.items) == (2, 8) and second.last_close == {"v": 4000}, second

    reference = lakehouse(spark, root, "reference")
    reference.ingest("s", [incoming.resolve().as_uri()])
    reference.slide("v", until=4600)
    for a, b, what in zip(tables(lake), tables(reference), ("events", "quarantine")):
        same(a, b, what)
    assert [(h.close, h.admitted, h.derived) for h in lake.history("v")] == \
        [(h.close, h.admitted, h.derived) for h in reference.history("v")]
    exported = list(lake.export("v"))
    assert f"{ex('p40')} {TYPE} {ex('Person')} ." in exported
    assert exported == list(reference.export("v"))


def test_lateness_holds_a_close_back(spark, root):
    incoming = root / "late"
    incoming.mkdir()
    for n in (2, 3):
        batch_files(incoming, n)
    lake = lakehouse(spark, root, "lateness")
    report = lake.run(["v"], str(incoming), lateness=1000)
    # newest event 3500: with a second of lateness the last close is 2000, not 3000
    assert report.closes == {"v": 1} and report.last_close == {"v": 2000}, report
