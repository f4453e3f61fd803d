"""A home of hundreds of closes keeps the reading commands' fast path (decisions 0028,
0029): `history` and `export` answer from the home's files in a process of their own where
no JVM can start. Delta lists a version's files in its checksum only up to 50 files and
`view_state` gains one per close, so past some fifty closes its files come from the log's
last checkpoint and the commits after it."""
from __future__ import annotations

import json

import pytest

from tests.cli.helpers import ex, jsonl, run_without_java, simple_view

pytestmark = [pytest.mark.slow, pytest.mark.long, pytest.mark.minutes(8)]

CLOSES = 200


def test_history_and_export_of_hundreds_of_closes_start_no_jvm(cli, tmp_path, monkeypatch):
    simple_view(tmp_path, width="2s", slide="1s")
    cli("view", "create", str(tmp_path / "v.yaml"))
    # an item every slide, so that no close is skipped for want of work; one slide does them all
    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 1000) for t in range(1, CLOSES + 2)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    last = 2000 + (CLOSES - 1) * 1000  # the first close is at start + width
    cli("slide", "v", "--until", str(last))

    # the case itself: a checksum that lists no files, logs read from their checkpoints
    log = cli.home / "view_state" / "_delta_log"
    assert "allFiles" not in json.loads(max(log.glob("*.crc")).read_text()), "view_state's checksum lists its files"
    for table in ("view_state", "mat_v"):
        assert any((cli.home / table / "_delta_log").glob("*.checkpoint.parquet")), f"{table} has no checkpoint"

    commands = [("history", "v"), ("export", "v"), ("export", "v", "--close", str(last - CLOSES // 2 * 1000))]
    monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")  # what Spark reads, in this process
    expected = {args: cli(*args) for args in commands}
    monkeypatch.delenv("REASONLAKE_SMALL_TABLES")
    assert len(expected[("history", "v")].splitlines()) == 1 + CLOSES
    assert all(expected[args].strip() for args in commands)
    for args in commands:
        run = run_without_java(cli.home, tmp_path, *args)
        assert run.returncode == 0, f"`{' '.join(args)}` needed a JVM: {run.stderr[-2000:]}"
        assert run.stdout == expected[args], " ".join(args)
