"""A slide SIGKILLed after a close wrote its registered queries' rows, before it recorded
itself, then re-run: each close's rows are there once, as an uninterrupted slide writes them."""
from __future__ import annotations

import json

import pytest

from tests.cli.helpers import EX, ex, jsonl, simple_view
from tests.cli.test_crash_recovery import _home, _killed_at

pytestmark = pytest.mark.slow


def _rows(spark, home, view: str) -> list[tuple]:
    """The query's rows as (close, x), sorted: the version may differ after a redone close."""
    from reasonlake.engine.store import query_tables

    query = home.view(view).queries[0]
    frame = spark.read.format("delta").load(query_tables.path(home, view, query))
    return sorted((r.close, r.x) for r in frame.collect())


def test_killed_after_writing_query_rows_then_rerun(spark, cli, tmp_path):
    from reasonlake.engine.store import state

    query = [{"name": "agents", "text": f"PREFIX ex: <{EX}> SELECT ?x WHERE {{ ?x a ex:Agent }}",
              "stream": "istream"}]
    for name in ("killed", "whole"):
        view = simple_view(tmp_path, name=name, width="3s")
        view.write_text(view.read_text() + f"queries: {json.dumps(query)}\n")
        cli("view", "create", str(view))
    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 700) for t in range(1, 10)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for name, until in (("whole", "7000"), ("killed", "4000")):
        cli("slide", name, "--until", until)
    home = _home(cli)
    _killed_at(cli.home, tmp_path, "queries", "slide", "killed", "--until", "7000")
    # the kill landed before close 5000 recorded itself ...
    assert state.lineage(home, "killed")[-1].close == 4000
    assert max(c for c, _ in _rows(spark, home, "killed")) == 5000  # ... after its rows were written
    cli("slide", "killed", "--until", "7000")  # the re-run, in this process
    assert [r.close for r in state.lineage(home, "killed")][-1] == 7000
    assert _rows(spark, home, "killed") == _rows(spark, home, "whole")
