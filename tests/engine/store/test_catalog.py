"""Catalog names: after `init --catalog spark_catalog`, a plain pyspark session (Delta and the
home's metastore, no reasonlake) reads each view by name as `reasonlake sql` shows it:
decoded terms, the window at the last published close; a slide that crashed after its
table commit but before recording the close leaves readers on the close before."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import REPO, ProcessCli

EX = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
COLUMNS = "subject, predicate, object, CAST(origin AS STRING) AS origin, CAST(expires AS STRING) AS expires, inferred"


def plain(home: Path, query: str) -> Counter:
    run = subprocess.run([sys.executable, str(Path(__file__).parent / "plain_reader.py"), str(home), query],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return Counter(line[4:] for line in run.stdout.splitlines() if line.startswith("ROW "))


def reasonlake_sql(cli: ProcessCli, query: str) -> Counter:
    rows = [json.loads(line) for line in cli("sql", query, "--format", "json").splitlines() if line.strip()]
    return Counter(json.dumps(r, default=str) for r in rows)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(8)
def test_a_plain_session_reads_the_views_by_name_as_reasonlake_shows_them(tmp_path):
    home = tmp_path / "lake"
    cli = ProcessCli(home)
    assert "registered in spark_catalog.reasonlake" in cli("init", "--catalog", "spark_catalog")
    cli("view", "create", str(REPO / "views" / "active_users.yaml"))
    cli("ingest", "social", str(REPO / "examples" / "streams" / "social.jsonl"))
    cli("slide", "active_users", "--until", "2026-11-22T10:08:00Z")

    # an owl2rl view with a violation: its violations are a name too
    (tmp_path / "r.ttl").write_text("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                                    f"<{EX}Reactor> owl:disjointWith <{EX}Sensor> .\n")
    (tmp_path / "r.yaml").write_text("name: r\nstream: s\nontology: [r.ttl]\nprofile: owl2rl\n"
                                     "window: {width: 1m, slide: 30s, start: 0}\n")
    (tmp_path / "r.jsonl").write_text("".join(json.dumps({"s": f"<{EX}x>", "p": TYPE, "o": f"<{EX}{c}>", "ts": ts}) + "\n"
                                              for c, ts in (("Reactor", 10_000), ("Sensor", 20_000))))
    cli("view", "create", str(tmp_path / "r.yaml"))
    cli("ingest", "s", str(tmp_path / "r.jsonl"))
    cli("slide", "r", "--until", "1970-01-01T00:01:00Z")
    violation = "SELECT rule, CAST(since AS STRING) AS since, to_json(bindings) AS bindings, to_json(triples) AS triples FROM {}"
    seen = reasonlake_sql(cli, violation.format("r_violations"))
    assert sum(seen.values()) == 1 and '"rule": "cax-dw"' in next(iter(seen)), seen
    assert plain(home, violation.format("reasonlake.r_violations")) == seen

    query = f"SELECT {COLUMNS} FROM {{}} ORDER BY subject, predicate, object"
    at_8 = reasonlake_sql(cli, query.format("active_users"))
    assert sum(at_8.values()) > 10 and any('"inferred": true' in r for r in at_8), at_8
    assert plain(home, query.format("reasonlake.active_users")) == at_8
    tables = plain(home, "SHOW TABLES IN reasonlake")
    assert {json.loads(r)["tableName"] for r in tables} == {
        "active_users", "r", "r_violations", "rl_events", "rl_quarantine", "rl_late", "rl_view_state", "rl_ingests",
        "rl_views", "rl_expectations"}

    # the table commit of close 10:09 is made, the close is not recorded: readers stay at 10:08
    crashed = subprocess.run(
        [sys.executable, "-m", "reasonlake.cli", "--home", str(home), "slide", "active_users", "--until",
         "2026-11-22T10:09:00Z"], env={**os.environ, "REASONLAKE_CRASH_AFTER": "publish"}, capture_output=True)
    assert crashed.returncode == 70, crashed.stderr[-2000:]
    assert plain(home, query.format("reasonlake.active_users")) == at_8

    cli("slide", "active_users", "--until", "2026-11-22T10:09:00Z")
    at_9 = reasonlake_sql(cli, query.format("active_users"))
    assert at_9 != at_8
    assert plain(home, query.format("reasonlake.active_users")) == at_9
