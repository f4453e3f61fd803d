"""What a slide leaves in the Delta history: expiry drops whole partitions without rewriting
a data file, insertions are one MERGE; time travel gives each published close back."""
from __future__ import annotations

from tests.cli.helpers import ex, jsonl, simple_view


def test_expiry_is_a_partition_drop_and_insertions_a_merge(cli, spark, tmp_path):
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
