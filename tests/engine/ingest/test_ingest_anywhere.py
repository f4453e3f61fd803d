"""Ingest from wherever the data is: folders, globs and ``file:`` URIs read by the executors,
and DataFrames, giving the same events and quarantine rows as the driver's reading of the
same files (a corpus of every line format with good and bad rows), and the same view."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from tests.conftest import write

EX = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
GEN = "<http://www.w3.org/ns/prov#generatedAtTime>"
XSD_DT = "<http://www.w3.org/2001/XMLSchema#dateTime>"


def ex(name: str) -> str:
    return f"<{EX}{name}>"


GOOD_ROWS = [
    {"s": ex("ann"), "p": ex("knows"), "o": ex("bob"), "ts": 1000},
    {"s": ex("bob"), "p": TYPE, "o": ex("Student"), "ts": "1970-01-01T00:00:02Z"},
    {"s": "_:b1", "p": ex("knows"), "o": ex("cid"), "ts": 2500},
    {"s": ex("cid"), "p": ex("age"), "o": '"7"^^<http://www.w3.org/2001/XMLSchema#integer>', "ts": 2600},
]
BAD_ROWS = [
    {"s": "<http://bad iri>", "p": ex("knows"), "o": ex("bob"), "ts": 1000},
    {"s": ex("a"), "p": ex("knows"), "o": ex("b"), "ts": "yesterday"},
    {"s": ex("a"), "p": "<http://www.w3.org/2000/01/rdf-schema#subClassOf>", "o": ex("b"), "ts": 1000},
    {"s": '"lit"', "p": ex("knows"), "o": ex("b"), "ts": 1000},
]


def _corpus(folder: Path) -> Path:
    """One file per line format, each with good and bad rows, and files a folder skips."""
    rows = [json.dumps(r) for r in GOOD_ROWS[:2]] + ["{not json"] + [json.dumps(r) for r in BAD_ROWS] + \
        [json.dumps(r) for r in GOOD_ROWS[2:]]
    write(folder / "a.jsonl", "\n".join(rows) + "\n")
    write(folder / "b.csv", "s,p,o,ts\n"
          f"{ex('dan')},{ex('knows')},{ex('eve')},3000\n"
          f"{ex('dan')},{ex('knows')},,3000\n"
          f"{ex('eve')},{TYPE},{ex('Student')},not-a-time\n"
          f"\"{ex('eve')}\",{ex('likes')},\"\"\"hi, there\"\"\",3100\n")
    write(folder / "sub" / "c.nq", (
        f"{ex('fay')} {ex('knows')} {ex('gus')} {ex('g1')} .\n"
        f"{ex('g1')} {GEN} \"1970-01-01T00:00:03Z\"^^{XSD_DT} .\n"
        f"{ex('hal')} {ex('knows')} {ex('ivy')} {ex('g2')} .\n"
        f"{ex('bad')} {ex('knows')} .\n"
        f"{ex('jo')} {ex('knows')} {ex('kim')} .\n"
    ))
    write(folder / "sub" / "d.nt", f"{ex('lee')} {ex('knows')} {ex('max')} .\n_:x {ex('knows')} {ex('lee')} .\n")
    write(folder / "_skipped.jsonl", json.dumps(GOOD_ROWS[0]) + "\n")
    write(folder / ".hidden" / "e.jsonl", json.dumps(GOOD_ROWS[0]) + "\n")
    write(folder / "notes.txt", "not a stream file\n")
    return folder


VIEW = (
    "name: v\nstream: s\nontology: [v.ttl]\nprofile: rdfs-plus\nwindow: {width: 4s, slide: 1s, start: 0}\n"
)
TBOX = (
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    f"<{EX}knows> rdfs:domain <{EX}Person> .\n<{EX}Student> rdfs:subClassOf <{EX}Person> .\n"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("anywhere")
    write(root / "v.ttl", TBOX)
    write(root / "v.yaml", VIEW)
    return root, _corpus(root / "in")


def _lake(spark, root: Path, name: str):
    from reasonlake.api import Lakehouse

    lake = Lakehouse(str(root / name), spark=spark)
    lake.init()
    lake.create_views([root / "v.yaml"])
    return lake


def _tables(lake):
    """events and quarantine with each file named by its last segment (a path and a URI of
    the same file then compare equal)."""
    base = F.element_at(F.split("file", "/"), -1).alias("file")
    events = lake.spark.read.format("delta").load(lake.home.path("events")).select(
        "stream", "s", "p", "o", "s_id", "p_id", "o_id", "ts", "ts_day", base, "line", "event")
    bad = lake.spark.read.format("delta").load(lake.home.path("quarantine")).select("stream", base, "line", "raw", "reason")
    return events, bad


def _same(a, b, what):
    extra, missing = a.exceptAll(b), b.exceptAll(a)
    assert extra.isEmpty() and missing.isEmpty(), (
        f"{what}: only in the first {extra.collect()[:5]}; only in the second {missing.collect()[:5]}")


def test_a_folder_as_a_uri_is_read_by_spark_like_the_driver_reads_it(spark, corpus):
    root, folder = corpus
    driver, executors = _lake(spark, root, "driver"), _lake(spark, root, "executors")
    by_driver = driver.ingest("s", [folder], ts=500)
    by_spark = executors.ingest("s", [folder.as_uri()], ts=500)
    names = [Path(r.file).name for r in by_driver]
    assert names == ["a.jsonl", "b.csv", "c.nq", "d.nt"], names  # skipped: _, ., unsupported
    assert [Path(r.file).name for r in by_spark] == names
    assert all(r.file.startswith("file:/") for r in by_spark), [r.file for r in by_spark]
    assert [(r.items, r.quarantined) for r in by_driver] == [(4, 5), (2, 2), (1, 3), (2, 0)]
    assert [(r.items, r.quarantined) for r in by_spark] == [(r.items, r.quarantined) for r in by_driver]
    assert [sorted(r.reasons) for r in by_spark] == [sorted(r.reasons) for r in by_driver]
    for (a, b), what in zip(zip(_tables(driver), _tables(executors)), ("events", "quarantine")):
        _same(a, b, what)
    # the same view over both
    driver.slide("v", until=4000)
    executors.slide("v", until=4000)
    exported = list(executors.export("v"))
    assert f"{ex('ann')} {TYPE} {ex('Person')} ." in exported
    assert exported == list(driver.export("v"))
    # a re-run names the first duplicate and writes nothing
    from reasonlake.errors import DuplicateFileError

    with pytest.raises(DuplicateFileError, match="a.jsonl"):
        executors.ingest("s", [folder.as_uri()], ts=500)
    assert executors.spark.read.format("delta").load(executors.home.path("ingests")).count() == 4


def test_globs_and_file_uris_name_files(spark, corpus, tmp_path):
    root, folder = corpus
    write(tmp_path / "v.ttl", TBOX)
    write(tmp_path / "v.yaml", VIEW)
    lake = _lake(spark, tmp_path, "lake")
    local = lake.ingest("s", [str(folder / "**" / "*.n[qt]")], ts=500)
    assert [Path(r.file).name for r in local] == ["c.nq", "d.nt"]
    remote = lake.ingest("s2", [f"{folder.as_uri()}/*.jsonl", (folder / "b.csv").as_uri()])
    assert [Path(r.file).name for r in remote] == ["a.jsonl", "b.csv"]
    from reasonlake.errors import IngestError

    with pytest.raises(IngestError, match="no such file"):
        lake.ingest("s", [(folder / "absent.jsonl").as_uri()])
    with pytest.raises(IngestError, match="no file matches"):
        lake.ingest("s", [str(folder / "*.trig")])
    with pytest.raises(IngestError, match="unsupported file type"):
        lake.ingest("s", [(folder / "notes.txt").as_uri()])


def test_a_dataframe_is_checked_like_jsonl_rows(spark, corpus, tmp_path):
    root, folder = corpus
    write(tmp_path / "v.ttl", TBOX)
    write(tmp_path / "v.yaml", VIEW)
    lake = _lake(spark, tmp_path, "frames")
    rows = [{**r, "ts": str(r["ts"])} for r in GOOD_ROWS + BAD_ROWS]
    frame = spark.createDataFrame(rows, "s STRING, p STRING, o STRING, ts STRING").repartition(2)
    report = lake.ingest_frame("s", frame, name="people")
    assert (report.items, report.quarantined) == (4, 4)
    by_file = lake.ingest("s2", [folder / "a.jsonl"])[0]
    events, bad = _tables(lake)
    # blank nodes are skolemized apart per source: compared by their label
    label = r"^<urn:reasonlake:genid:[^>]*:([^:>]+)>$"
    fields = [F.regexp_replace("s", label, "_:$1").alias("s"), "p", F.regexp_replace("o", label, "_:$1").alias("o"), "ts"]
    _same(events.where("stream = 's'").select(*fields), events.where("stream = 's2'").select(*fields), "events")
    reasons = {r.reason for r in bad.where("stream = 's'").collect()}
    assert reasons == {r[2] for r in by_file.reasons if "JSON" not in r[2]}, reasons
    assert {r.file for r in bad.where("stream = 's'").collect()} == {"people"}
    # ts as a timestamp and as epoch milliseconds
    typed = spark.createDataFrame([(ex("zed"), ex("knows"), ex("amy"), 5000)], "s STRING, p STRING, o STRING, ts BIGINT")
    stamped = typed.withColumn("ts", F.timestamp_millis(F.col("ts") + 1))
    assert lake.ingest_frame("s3", typed, name="ms").items == 1
    assert lake.ingest_frame("s3", stamped, name="stamps").items == 1
    got = sorted(r.ts for r in events.sparkSession.read.format("delta").load(lake.home.path("events"))
                 .where("stream = 's3'").collect())
    assert got == [5000, 5001]
