"""A query past its bound (``query.bound``, decision 0070) through the command line: the
cross product of three patterns over a view of 6,000 triples stops within seconds with one
``RL196`` line and exit 1; the setting and ``--max-rows`` lower and raise the bound; a query
within it is answered. A registered query past it in the runner: the runner goes on, the
view closes, the other query writes its rows, one line says which query wrote none."""
from __future__ import annotations

import json
import time

import pytest

from tests.cli.helpers import EX, ex, jsonl, simple_view

CROSS = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
AGENTS = f"PREFIX ex: <{EX}> SELECT ?x WHERE {{ ?x a ex:Agent }}"


def _events(path):
    """2,000 people knowing one another in the window's first close (3000): with their
    inferred types (Person, Agent), 6,000 triples; a last item lets the runner reach 3000."""
    events = [(ex(f"p{i}"), ex("knows"), ex(f"p{(i * 7) % 2000}"), 1000 + i // 2) for i in range(2000)]
    return jsonl(path, [*events, (ex("late"), ex("knows"), ex("p0"), 3500)])


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_query_past_its_bound_is_one_line_and_the_setting_moves_the_bound(cli, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("REASONLAKE_QUERY_MAX_ROWS", raising=False)
    cli("view", "create", str(simple_view(tmp_path, width="3s", slide="1s")))
    cli("ingest", "s", str(_events(tmp_path / "e.jsonl")))
    cli("slide", "v", "--until", "3000")
    assert cli("query", "v", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--format", "csv").split() == ["n", "6000"]
    started = time.perf_counter()
    cli("query", "v", CROSS, expect=1)
    assert time.perf_counter() - started < 30  # 3.6 s measured for the whole command, 0.04 s of it the query's
    line = _one_line(cli.last_err)
    assert line.startswith("reasonlake: error RL196: the query stopped at the join of {?a ?b ?c} (6,000 rows) "
                           "and {?d ?e ?f} (6,000 rows), which share no variable: 36,000,000 rows, past its "
                           "bound of 10,000,000 rows (REASONLAKE_QUERY_MAX_ROWS"), line
    assert "REASONLAKE_QUERY_MAX_ROWS=N, or `reasonlake query --max-rows N` for one query" in line
    # a query within the bound is answered; the setting lowers the bound, the flag raises it again
    assert len(cli("query", "v", AGENTS, "--format", "csv").split()) == 2001
    monkeypatch.setenv("REASONLAKE_QUERY_MAX_ROWS", "1500")
    cli("query", "v", AGENTS, expect=1)
    assert "the answer: more than 1,500 rows, past its bound of 1,500 rows" in _one_line(cli.last_err)
    assert len(cli("query", "v", AGENTS, "--format", "csv", "--max-rows", "2000").split()) == 2001
    cli("query", "v", AGENTS, "--max-rows", "2000", "--max-mb", "0.01", expect=1)
    assert "MB, past its bound of 0.01 MB (REASONLAKE_QUERY_MAX_MB" in _one_line(cli.last_err)
    with pytest.raises(SystemExit) as stopped:  # a usage mistake: argparse's one line, exit 1
        cli("query", "v", AGENTS, "--max-rows", "0")
    assert stopped.value.code == 1 and "--max-rows: give a number above 0" in capsys.readouterr().err


def test_a_registered_query_past_its_bound_leaves_the_runner_and_the_view_going(cli, tmp_path):
    from reasonlake.api import Lakehouse
    from reasonlake.engine.store import query_tables, state

    view = simple_view(tmp_path, width="3s", slide="1s")
    queries = [{"name": "everything", "text": CROSS}, {"name": "agents", "text": AGENTS}]
    view.write_text(view.read_text() + f"queries: {json.dumps(queries)}\n")
    cli("view", "create", str(view))
    _events(tmp_path / "incoming" / "e.jsonl")
    out = cli("run", "v", "--source", str(tmp_path / "incoming"))
    assert "closes processed: v 1" in out
    line = _one_line(cli.last_err)
    assert line.startswith("reasonlake: warning: view v: query everything at close 1970-01-01T00:00:03.000Z: "
                           "RL196: the query stopped at the join of"), line
    assert line.endswith("no rows written for this close (the view's close and its other queries went on)")
    home = Lakehouse(str(cli.home)).home
    assert [r.close for r in state.lineage(home, "v")] == [3000]
    agents, everything = (home.spark.read.format("delta").load(query_tables.path(home, "v", q))
                          for q in reversed(home.view("v").queries))
    assert agents.where("close = 3000").count() == 2000 and everything.count() == 0
