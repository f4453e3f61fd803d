"""What a slide leaves in the Delta history: a close is one commit that drops the expired
partitions and writes only the panes it touched, whether its table is held in the driver or
read by Spark; where the touched panes are many (``REPLACE_ROWS``), expiry drops whole
partitions without rewriting a data file and insertions are one MERGE; time travel gives
each published close back."""
from __future__ import annotations

from datetime import datetime

import pytest

from reasonlake.engine.reason import budget
from reasonlake.engine.store import materialization
from tests.cli.helpers import ex, jsonl, simple_view


def test_expiry_is_a_partition_drop_and_insertions_a_merge(cli, spark, tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "LOCAL_ROWS", 0)  # the Spark path: the table is never held
    monkeypatch.setattr(materialization, "REPLACE_ROWS", 0)  # touched panes too many to write again
    view = simple_view(tmp_path)
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 9)]
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "8000")
    history = spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/mat_v`").collect()
    deletes = [h for h in history if h.operation == "DELETE"]
    merges = [h for h in history if h.operation == "MERGE"]
    assert deletes, "no expiry delete in the history"
    assert merges, "no MERGE in the history"
    for d in deletes:
        metrics = d.operationMetrics
        assert int(metrics.get("numRemovedFiles", "0")) > 0
        assert int(metrics.get("numAddedFiles", "0")) == 0, metrics  # no file rewritten
        assert int(metrics.get("numDeletionVectorsAdded", "0")) == 0, metrics
        assert int(metrics.get("numCopiedRows", "0")) == 0, metrics
    for m in merges:
        assert int(m.operationMetrics["numTargetRowsInserted"]) > 0


@pytest.mark.parametrize("path", ["driver", "spark"])
def test_a_close_is_one_commit_dropping_expired_panes(cli, spark, tmp_path, monkeypatch, path):
    if path == "spark":  # the table read by Spark at every close, the rounds there (decision 0056)
        monkeypatch.setattr(budget, "LOCAL_ROWS", 0)
    view = simple_view(tmp_path)
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 9)]
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "8000")  # closes 4000..8000 in one job: 4000 reads the table (driver)
    from reasonlake.api import Lakehouse

    records = Lakehouse(str(cli.home), spark=spark).history("v")
    assert [r.close for r in records] == [4000, 5000, 6000, 7000, 8000]
    history = {h.version: h for h in spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/mat_v`").collect()}
    for before, record in zip(records, records[1:]):
        assert record.expired == 3 and record.admitted == 1  # a fact, its Person and Agent types
        assert record.version == before.version + 1, "more than one commit for a close"
        commit = history[record.version]
        assert commit.operation == "WRITE", commit
        predicate = commit.operationParameters["predicate"]
        assert f"exp_pane <= {record.close}" in predicate, predicate  # expiry in the same commit
        metrics = commit.operationMetrics
        # a1..a8 expire one per close: the expired pane's files and the touched pane's go,
        # and the new pane comes out as one file holding only that close's three facts
        assert _metric(metrics, "numRemovedFiles") >= 1, metrics
        assert _metric(metrics, "numFiles") == 1 and _metric(metrics, "numOutputRows") == 3, metrics
    final = spark.read.format("delta").load(f"{cli.home}/mat_v")
    assert final.where(f"exp_pane <= {records[-1].close}").count() == 0
    assert final.count() == 3 * 4  # a5..a8 knows b, each with its two types


# the names delta-rs gives the same metrics: over Spark Connect the driver commits with it (decision 0030)
_DELTA_RS_METRICS = {"numRemovedFiles": "num_removed_files", "numFiles": "num_added_files",
                     "numOutputRows": "num_added_rows"}


def _metric(metrics: dict, name: str) -> int:
    return int(metrics[name] if name in metrics else metrics[_DELTA_RS_METRICS[name]])


def test_time_travel_by_version_and_close(cli, tmp_path):
    view = simple_view(tmp_path)
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in (1, 3, 6)]
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    printed = {}
    for close in (4000, 5000, 7000, 9000):
        cli("slide", "v", "--until", str(close))
        printed[close] = cli("export", "v")
    assert printed[4000] != printed[7000]
    history = cli("history", "v").splitlines()[1:]
    for line in history:
        fields = line.split()
        close_iso, version = fields[0], fields[1]
        by_version = cli("export", "v", "--version", version)
        by_close = cli("export", "v", "--close", close_iso)
        assert by_version == by_close
    assert cli("export", "v", "--close", "4000") == printed[4000]
    assert cli("export", "v", "--close", "7000") == printed[7000]
    assert ex("a1") in printed[4000] and ex("a1") not in printed[5000]


def test_writes_through_spark_leave_the_same_tables_as_writes_from_the_driver(spark, tmp_path, capsys, monkeypatch):
    """Over Spark Connect, on a cloud path or on Databricks every table is written through
    Spark (engine/arrow_commit is refused): the same view, history and ingest records."""
    from tests.conftest import CliRunner

    view = simple_view(tmp_path)
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 9)]
    source = jsonl(tmp_path / "e.jsonl", events)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"s": "<http://ex.org/x>", "p": "nope", "o": "<http://ex.org/y>", "ts": 1}\n')
    seen = {}
    for setting in ("1", "0"):
        monkeypatch.setenv("REASONLAKE_ARROW_COMMIT", setting)
        cli = CliRunner(tmp_path / f"lake{setting}", capsys)
        cli("init")
        cli("view", "create", str(view))
        cli("ingest", "s", str(source))
        cli("ingest", "s", str(bad))
        cli("slide", "v", "--until", "6000")
        cli("slide", "v", "--until", "8000")
        ops = [r.operation for r in spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/mat_v`").collect()]
        quarantined = spark.read.format("delta").load(f"{cli.home}/quarantine").select("line", "reason").collect()
        seen[setting] = (cli("export", "v"), cli("history", "v").split("\n")[0], ops,
                         sorted(map(tuple, quarantined)))
    assert seen["1"][0] == seen["0"][0] and "a8" in seen["1"][0]
    assert seen["1"][1:] == seen["0"][1:]
    assert seen["1"][3] and seen["1"][2].count("WRITE") >= 2, seen["1"]


def test_a_merge_renews_only_the_fact_it_names(cli, spark, tmp_path, monkeypatch):
    """On the MERGE path, a renewed fact's row takes its new origin, and a fact of the same
    subject and predicate in the same pane keeps its own: the MERGE matches on the whole
    triple."""
    from reasonlake.api import Lakehouse

    monkeypatch.setattr(budget, "LOCAL_ROWS", 0)
    monkeypatch.setattr(materialization, "REPLACE_ROWS", 0)
    cli("view", "create", str(simple_view(tmp_path)))
    events = [(ex("a"), ex("knows"), ex("b"), 4500), (ex("a"), ex("knows"), ex("c"), 4500),
              (ex("a"), ex("knows"), ex("b"), 6500)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "7000")
    history = spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/mat_v`").collect()
    assert any(h.operation == "MERGE" and int(h.operationMetrics.get("numTargetRowsUpdated", "0")) > 0
               for h in history), "no MERGE renewed a row: the case this test is for is gone"
    rows = Lakehouse(str(cli.home), spark=spark).view("v").where(f"subject = '{ex('a')}' AND predicate = '{ex('knows')}'")
    epoch = datetime(1970, 1, 1)  # origins are the session's UTC timestamps, as naive datetimes
    origins = {r.object: round((r.origin - epoch).total_seconds() * 1000) for r in rows.collect()}
    assert origins == {ex("b"): 6500, ex("c"): 4500}, origins
