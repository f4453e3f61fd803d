"""Bad input: one clear message, exit code 1, and nothing lost (rows go to quarantine)."""
from __future__ import annotations

import json

from tests.cli.helpers import ex, jsonl, simple_view
from tests.conftest import write


def _err(cli) -> str:
    lines = [l for l in cli.last_err.splitlines() if l.strip()]
    assert len(lines) == 1, f"wanted one line on stderr, got: {cli.last_err!r}"
    return lines[0]


def test_bad_rows_are_quarantined_with_reasons(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    good = {"s": ex("a"), "p": ex("knows"), "o": ex("b"), "ts": 1000}
    rows = [
        json.dumps(good),
        "{not json",
        json.dumps({**good, "s": "<http://bad iri>"}),
        json.dumps({k: v for k, v in good.items() if k != "ts"}),
        json.dumps({**good, "ts": "yesterday"}),
        json.dumps({**good, "p": "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"}),
    ]
    stream = write(tmp_path / "mixed.jsonl", "\n".join(rows) + "\n")
    out = cli("ingest", "s", str(stream), "--strict", expect=1)
    assert "1 items, 5 quarantined" in out
    assert "quarantine" in _err(cli)
    listed = cli("sql", "SELECT line, reason FROM rl_quarantine ORDER BY line", "--format", "json")
    reasons = {json.loads(l)["line"]: json.loads(l)["reason"] for l in listed.splitlines()}
    assert sorted(reasons) == [2, 3, 4, 5, 6]
    assert "JSON" in reasons[2] or "json" in reasons[2]
    assert "IRI" in reasons[3]
    assert "ts" in reasons[4]
    assert "ts" in reasons[5]
    assert "TBox" in reasons[6]
    # the good row is there: nothing lost
    events = cli("sql", "SELECT count(*) AS n FROM rl_events", "--format", "csv").splitlines()
    assert events[1] == "1"


def test_without_strict_the_ingest_succeeds_and_reports(cli, tmp_path):
    stream = write(tmp_path / "m.jsonl", '{"s": "<http://x/a>"}\n')
    out = cli("ingest", "s", str(stream))
    assert "0 items, 1 quarantined" in out
    assert "missing field" in out


def test_duplicate_file_is_refused_unless_allowed(cli, tmp_path):
    stream = jsonl(tmp_path / "e.jsonl", [(ex("a"), ex("knows"), ex("b"), 1000)])
    cli("ingest", "s", str(stream))
    cli("ingest", "s", str(stream), expect=1)
    assert "--allow-duplicate-file" in _err(cli)
    cli("ingest", "s", str(stream), "--allow-duplicate-file")
    n = cli("sql", "SELECT count(*) AS n FROM rl_events", "--format", "csv").splitlines()[1]
    assert n == "2"


def test_unknown_view(cli):
    cli("slide", "nope", expect=1)
    assert "unknown view 'nope'" in _err(cli)
    cli("export", "nope", expect=1)
    cli("history", "nope", expect=1)


def test_malformed_yaml(cli, tmp_path):
    bad = write(tmp_path / "bad.yaml", "name: [unclosed\n")
    cli("view", "create", str(bad), expect=1)
    assert "bad.yaml" in _err(cli) and "YAML" in _err(cli)


def test_bad_field_in_view(cli, tmp_path):
    bad = write(tmp_path / "w.yaml", "name: w\nstream: s\nprofile: rdfs\nwindow: {width: 5 minutes, slide: 1m}\n")
    cli("view", "create", str(bad), expect=1)
    msg = _err(cli)
    assert "w.yaml" in msg and "window.width" in msg and "5m" in msg
    bad = write(tmp_path / "p.yaml", "name: p\nstream: s\nprofile: owl3\nwindow: {width: 5m, slide: 1m}\n")
    cli("view", "create", str(bad), expect=1)
    assert "profile" in _err(cli) and "rdfs-plus" in _err(cli)


def test_bad_time_arguments(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("slide", "v", "--until", "tomorrow", expect=1)
    assert "ISO 8601" in _err(cli)
    cli("slide", "v", "--until", "2026-11-22T10:00:00", expect=1)  # no zone
    assert "zone" in _err(cli)
    nt = write(tmp_path / "x.nt", f"{ex('a')} {ex('knows')} {ex('b')} .\n")
    cli("ingest", "s", str(nt), expect=1)
    assert "--ts" in _err(cli)


def test_view_redefinition(cli, tmp_path):
    view = simple_view(tmp_path)
    assert "created" in cli("view", "create", str(view))
    assert "unchanged" in cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", [(ex("a"), ex("knows"), ex("b"), 1000)])))
    cli("slide", "v", "--until", "4000")
    view.write_text(view.read_text().replace("width: 4s", "width: 6s"))
    cli("view", "create", str(view), expect=1)
    assert "--rebuild" in _err(cli) and "window" in _err(cli)
    rebuilt = cli("view", "create", str(view), "--rebuild")
    assert "view v: rebuilt at its last close 1970-01-01T00:00:04.000Z (1 items, " in rebuilt, rebuilt
    out = cli("export", "v")
    assert f"{ex('a')} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {ex('Agent')} ." in out


def test_events_before_the_view_start_are_recorded_as_late(cli, tmp_path):
    view = simple_view(tmp_path)
    view.write_text(view.read_text().replace("start: 0", "start: 10000"))
    cli("view", "create", str(view))
    events = [(ex("early"), ex("knows"), ex("b"), 5000), (ex("edge"), ex("knows"), ex("b"), 10000),
              (ex("in"), ex("knows"), ex("b"), 12000)]
    cli("ingest", "s", str(jsonl(tmp_path / "a.jsonl", events)))
    cli("slide", "v", "--until", "15000")
    out = cli("export", "v")
    assert f"{ex('in')} {ex('knows')} {ex('b')} ." in out and ex("early") not in out and ex("edge") not in out
    recorded = [json.loads(line) for line in cli("sql", "SELECT s, reason FROM rl_late", "--format", "json").splitlines()]
    assert sorted(r["s"] for r in recorded) == sorted([ex("early"), ex("edge")])
    assert all("at or before the start of the view's windows (1970-01-01T00:00:10.000Z)" in r["reason"]
               for r in recorded), recorded
    lines = cli("history", "v").splitlines()
    assert lines[1].split()[lines[0].split().index("late")] == "2"  # counted at the first close


def test_late_events(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "a.jsonl", [(ex("a"), ex("knows"), ex("b"), 5000)])))
    cli("slide", "v", "--until", "6000")
    late = [(ex("in"), ex("knows"), ex("b"), 4000), (ex("gone"), ex("knows"), ex("b"), 1000)]
    cli("ingest", "s", str(jsonl(tmp_path / "b.jsonl", late)))
    cli("slide", "v", "--until", "7000")
    out = cli("export", "v")
    assert f"{ex('in')} {ex('knows')} {ex('b')} ." in out
    assert ex("gone") not in out
    origin = cli("sql", f"SELECT unix_millis(origin) AS o FROM v WHERE subject = '{ex('in')}' AND predicate = '{ex('knows')}'", "--format", "csv")
    assert origin.splitlines()[1] == "4000"
    lines = cli("history", "v").splitlines()
    late_column = lines[0].split().index("late")
    assert lines[-1].split()[late_column] == "1"  # one late event counted at the last close
    recorded = cli("sql", "SELECT s, reason FROM rl_late", "--format", "json").splitlines()
    assert len(recorded) == 1 and ex("gone") in recorded[0]
