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
    assert out.startswith("view v: vacuumed 1 table(s); only the latest close stays readable"), out
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


def _three_closes(cli, tmp_path, **view) -> None:
    """View v (width 2 s, slide 1 s) processed at closes 3, 4 and 5 s."""
    cli("view", "create", str(simple_view(tmp_path, width="2s", **view)))
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 6)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "5000")


def _refusals(cli, *args: str) -> tuple[str, str]:
    """The error lines of `export ARGS` and `violations ARGS`, both exit 1."""
    cli("export", *args, expect=1)
    export = cli.last_err
    cli("violations", *args, expect=1)
    return export, cli.last_err


def test_violations_close_is_checked_as_export_checks_it_on_a_view_without_violation_rules(cli, tmp_path):
    """An rdfs view has no violations table, and `violations --close` still answers for the
    close it names, or refuses it with export's own line."""
    _three_closes(cli, tmp_path, profile="rdfs")
    assert cli("violations", "v", "--close", "3000") == "view v at 1970-01-01T00:00:03.000Z: consistent\n"
    assert cli("violations", "v", "--close", "4000", "--format", "json") == ""
    for not_a_close in ("3500", "9000", "1000"):  # between closes, after the last, before the first
        export, violations = _refusals(cli, "v", "--close", not_a_close)
        assert violations == export and violations.startswith("reasonlake: error RL180: "), violations
    cli("vacuum", "--retain", "0s")
    export, violations = _refusals(cli, "v", "--close", "3000")
    assert violations == export, violations
    assert "RL180" in violations and "can no longer be read: a vacuum removed its files" in violations
    assert cli("violations", "v", "--close", "5000") == "view v at 1970-01-01T00:00:05.000Z: consistent\n"
    assert cli("violations", "v") == "view v at 1970-01-01T00:00:05.000Z: consistent\n"


def test_vacuum_retain_zero_in_any_unit_keeps_only_the_latest_close(cli, tmp_path):
    _three_closes(cli, tmp_path)
    latest = cli("export", "v")
    assert cli("vacuum", "--retain", "0h") == "view v: vacuumed 1 table(s); only the latest close stays readable\n"
    cli("export", "v", "--close", "4000", expect=1)
    assert "can no longer be read" in cli.last_err
    assert cli("export", "v") == latest


def test_vacuum_retain_negative_is_one_error_line_naming_the_flag(cli):
    for args in (("--retain", "-1h"), ("--retain=-1h",)):
        cli("vacuum", *args, expect=1)
        assert cli.last_err == (
            "reasonlake: error RL140: --retain: '-1h' is negative; give 0s (only the latest close stays "
            "readable) or a positive duration; use 500ms, 30s, 5m, 2h, 1d or ISO 8601 such as PT5M, P30D, P1Y "
            "(an ISO year counts 365 days, a month 30)\n"), cli.last_err


def test_vacuum_retain_takes_iso_years_up_to_100(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    assert cli("vacuum", "--retain", "P1Y") == "view v: vacuumed 1 table(s); closes stay readable for 365d\n"
    cli("vacuum", "--retain", "P200Y", expect=1)
    assert cli.last_err.startswith("reasonlake: error RL140: --retain: 'P200Y' is longer than 100 years; use "), \
        cli.last_err
