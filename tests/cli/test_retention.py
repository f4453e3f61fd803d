"""Retention: `vacuum` removes the files of closes past the view's retention; such a close
is then answered with exit 1 and the oldest close still readable, the latest is intact."""
from __future__ import annotations

from tests.cli.helpers import ex, jsonl, simple_view


def test_vacuum_keeps_the_latest_close_and_names_what_is_gone(cli, tmp_path):
    view = simple_view(tmp_path, width="2s")
    view.write_text(view.read_text() + "retain: 0s\n")
    out = cli("view", "create", str(view))
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 6)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for until in ("3000", "4000", "5000"):  # each close rewrites what the last one published
        cli("slide", "v", "--until", until)
    latest = cli("export", "v")
    assert cli("export", "v", "--close", "3000")  # readable before the vacuum
    out = cli("vacuum")
    assert out.startswith("view v: vacuumed 1 table(s); closes stay readable for 0ms"), out
    assert cli("export", "v") == latest
    cli("export", "v", "--close", "3000", expect=1)
    assert "RL180" in cli.last_err and "can no longer be read: a vacuum removed its files" in cli.last_err
    assert "the oldest readable close is 1970-01-01T00:00:05.000Z" in cli.last_err, cli.last_err
    lines = cli("history", "v").splitlines()[1:]
    assert [line.endswith("(vacuumed: no longer readable)") for line in lines] == [True, True, True, False]
    # a changed retain is saved without a rebuild
    view.write_text(view.read_text().replace("retain: 0s", "retain: 30d"))
    assert cli("view", "create", str(view)).strip() == "view v: updated (same content)"
    assert cli("vacuum", "v").startswith("view v: vacuumed 1 table(s); closes stay readable for 30d")
    cli("vacuum", "v", "--retain", "soon", expect=1)
    assert "RL" in cli.last_err and "--retain" in cli.last_err
