"""What a new user meets first: mistakes answered before Spark starts (exit 1, one line
naming the fix), output with headers, --home anywhere, SQL errors that list the tables,
literals exported exactly as written, and rebuilds that never move a view unasked."""
from __future__ import annotations

import pytest

from tests.cli.helpers import ex, jsonl, simple_view
from tests.conftest import CliRunner, write

XSD = "http://www.w3.org/2001/XMLSchema#"
# Lexical forms rdflib would rewrite ("yes" to "false", Arabic-Indic digits to "12",
# "1e400" to "inf", nanoseconds cut and the Z dropped): each must come back as written.
AS_WRITTEN = [
    f'"yes"^^<{XSD}boolean>', f'"maybe"^^<{XSD}boolean>', f'"\u0661\u0662"^^<{XSD}integer>',
    f'"1_000"^^<{XSD}integer>', f'"1e400"^^<{XSD}double>', f'"05"^^<{XSD}int>',
    f'"2026-11-22T10:00:00.123456789Z"^^<{XSD}dateTime>',
]


def _random_literals(n: int, seed: int = 7) -> list[str]:
    """Typed literals in canonical N-Triples, valid and ill-typed for their datatype, with
    spaces, unicode, and the two escapes a canonical literal keeps (\\" and \\\\)."""
    import random

    rnd = random.Random(seed)
    pieces = ["0", "07", "-1", "+2", "1.50", "1e400", "NaN", "INF", "true", "1", "yes", " ", "\u00e9",
              "\u4e2d", "\u0661", "T", ":", "Z", "-", "_", '\\"', "\\\\", "x", "2026-11-22"]
    types = ["integer", "int", "byte", "decimal", "double", "float", "boolean", "dateTime", "date",
             "anyURI", "hexBinary", "base64Binary", "token", "unsignedLong"]
    out = []
    for _ in range(n):
        lexical = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 6)))
        out.append(f'"{lexical}"^^<{XSD}{rnd.choice(types)}>')
    return out


def cli_spark_conf(key: str) -> str:
    from reasonlake.engine.store.session import get_spark

    return get_spark().conf.get(key)


@pytest.fixture
def bare(tmp_path, capsys, monkeypatch):
    """A CLI whose commands fail the test if they reach the point of starting Spark."""
    def started(*_args, **_kwargs):
        raise AssertionError("the command started Spark before checking its arguments")

    monkeypatch.setattr("reasonlake.engine.store.session.get_spark", started)
    return CliRunner(tmp_path / "lake", capsys)


def test_mistakes_are_answered_before_spark_starts_with_exit_1(bare, tmp_path, capsys):
    from reasonlake.cli import main

    triples = write(tmp_path / "one.nt", f"{ex('a')} {ex('p')} {ex('b')} .\n")
    bare("ingest", "social", str(triples), expect=1)
    assert "error RL130: " in bare.last_err and "pass --ts TIME" in bare.last_err
    bare("ingest", "social", str(tmp_path / "missing.jsonl"), expect=1)
    assert "no such file or folder" in bare.last_err
    bare("ingest", "", str(triples), "--ts", "0", expect=1)
    assert "not a stream name" in bare.last_err
    bare("export", "v", "-o", str(tmp_path / "no-folder" / "x.nt"), expect=1)
    assert "error RL101: " in bare.last_err and "does not exist; create it first" in bare.last_err
    bare("explain", "v", "--removed", "<http://e/a> <http://e/p>", expect=1)
    assert "error RL101: " in bare.last_err and "not one N-Triples statement" in bare.last_err
    bare("export", "v", "-o", str(tmp_path), expect=1)
    assert "is a folder" in bare.last_err
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("name: caf\xe9\n".encode("latin-1"))
    bare("view", "create", str(latin1), expect=1)
    assert "error RL110: " in bare.last_err and "not UTF-8" in bare.last_err and "line 1" in bare.last_err
    bare("view", "create", str(tmp_path), expect=1)
    assert "is a folder" in bare.last_err
    repeated = write(tmp_path / "twice.yaml", simple_view(tmp_path).read_text() + "profile: rdfs\n")
    bare("view", "create", str(repeated), expect=1)
    assert "field 'profile' is given twice" in bare.last_err
    bare("view", "create", str(simple_view(tmp_path, name="huge", width="999999999999d")), expect=1)
    assert "error RL110: " in bare.last_err and "longer than 100 years" in bare.last_err
    assert main(["--home", str(write(tmp_path / "a-file", "x")), "init"]) == 1
    assert "error RL170: " in (err := capsys.readouterr().err) and "is a file, not a folder" in err
    with pytest.raises(SystemExit) as usage:  # argparse's own mistakes: 1 too, not 2
        main(["--home", str(bare.home), "no-such-command"])
    assert usage.value.code == 1


def test_a_first_session_through_the_cli(cli, tmp_path, capsys):
    from reasonlake.cli import main
    from reasonlake.cli.show import HISTORY_HEADER

    cli("view", "create", str(simple_view(tmp_path)))
    literals = AS_WRITTEN + _random_literals(40)
    rows = [(ex(f"r{n}"), ex("value"), literal, 2000) for n, literal in enumerate(literals)]
    cli("ingest", "s", str(jsonl(tmp_path / "values.jsonl", rows)))
    turtle = "".join(f"{ex(f't{n}')} {ex('value')} {literal} .\n" for n, literal in enumerate(AS_WRITTEN))
    cli("ingest", "s", str(write(tmp_path / "values.ttl", turtle)), "--ts", "1970-01-01T00:00:03Z")
    out = cli("slide", "v", "--until", "1970-01-01T00:00:05Z").splitlines()
    assert out[0] == HISTORY_HEADER and [line[:24] for line in out[1:]] == [
        "1970-01-01T00:00:04.000Z", "1970-01-01T00:00:05.000Z"], out
    # literals come back exactly as written, from JSONL and from Turtle
    exported = set(cli("export", "v").splitlines())
    wanted = {f"{s} {p} {o} ." for s, p, o, _ in rows}
    wanted |= {f"{ex(f't{n}')} {ex('value')} {literal} ." for n, literal in enumerate(AS_WRITTEN)}
    assert wanted - exported == set(), exported
    # export -o: a failed export leaves the file it would have replaced as it was
    target = write(tmp_path / "out.nt", "previous\n")
    cli("export", "v", "--version", "999", "-o", str(target), expect=1)
    assert "error RL180: " in cli.last_err and target.read_text() == "previous\n"
    assert f"wrote {len(exported)} triples" in cli("export", "v", "-o", str(target))
    assert set(target.read_text().splitlines()) == exported
    # a SQL mistake: one line on stderr, naming the tables there are
    cli("sql", "SELECT * FROM nope", expect=1)
    lines = [line for line in cli.last_err.splitlines() if line.strip()]
    assert len(lines) == 1, cli.last_err
    assert "error RL190: " in lines[0] and "TABLE_OR_VIEW_NOT_FOUND" in lines[0] and lines[0].endswith("the tables are: rl_events, rl_expectations, "
                                                                      "rl_ingests, rl_late, rl_quarantine, rl_view_state, rl_views, v"), lines[0]
    # why a fact is there, and after the next close why it is not: it expired
    yes = f"{ex('r0')} {ex('value')} {AS_WRITTEN[0]}"
    assert "is in view v at its last close 1970-01-01T00:00:05.000Z: a stream item, origin at " \
        "1970-01-01T00:00:02.000Z; expires at 1970-01-01T00:00:06.000Z" in cli("explain", "v", "--removed", yes)
    cli("slide", "v", "--until", "1970-01-01T00:00:06Z")
    why = cli("explain", "v", "--removed", yes)
    assert "was last in view v at close 1970-01-01T00:00:05.000Z" in why and \
        "left at close 1970-01-01T00:00:06.000Z: it expired" in why, why
    # rebuild: only a processed close, and moving the view back only when asked
    cli("rebuild", "v", "--at", "2030-01-01T00:00:00Z", expect=1)
    assert "after its last processed close, 1970-01-01T00:00:06.000Z" in cli.last_err
    cli("rebuild", "v", "--at", "1970-01-01T00:00:04.500Z", expect=1)
    assert "error RL180: " in cli.last_err and "is not a window close" in cli.last_err and "1970-01-01T00:00:04.000Z" in cli.last_err
    cli("rebuild", "v", "--at", "1970-01-01T00:00:04Z", expect=1)
    assert "before the last processed close" in cli.last_err and "--rewind" in cli.last_err
    out = cli("rebuild", "v", "--at", "1970-01-01T00:00:04Z", "--rewind")
    assert "rematerialized from scratch at 1970-01-01T00:00:04.000Z" in out and "2 later close(s)" in out, out
    # nothing left in the working directory: Spark's warehouse lives in reasonlake's cache
    from pathlib import Path

    warehouse = cli_spark_conf("spark.sql.warehouse.dir")
    assert not warehouse.startswith(f"file:{Path.cwd()}/") and "reasonlake" in warehouse, warehouse
    # --home after the verb
    capsys.readouterr()
    assert main(["history", "v", "--home", str(cli.home)]) == 0
    history = capsys.readouterr().out.splitlines()
    assert history[0] == HISTORY_HEADER and history[-1].startswith("1970-01-01T00:00:04.000Z"), history


def test_a_lost_race_with_another_writer_is_exit_1_saying_to_rerun(monkeypatch, capsys):
    import reasonlake.cli as cli_module

    def racing(_args):
        raise RuntimeError("io.delta.exceptions.ConcurrentAppendException: Files were added to the root of the table")

    from reasonlake.cli.verbs import VERBS

    monkeypatch.setitem(VERBS, "slide", racing)
    assert cli_module.main(["slide", "v"]) == 1
    err = capsys.readouterr().err
    assert "error RL400:" in err and "ConcurrentAppendException" in err and "safe to re-run" in err


def test_an_internal_error_is_one_line_and_debug_adds_its_traceback(monkeypatch, capsys):
    import reasonlake.cli as cli_module
    from reasonlake.cli.verbs import VERBS

    def broken(_args):
        raise KeyError("a bug")

    monkeypatch.setitem(VERBS, "history", broken)
    assert cli_module.main(["history", "v"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "reasonlake: internal error: KeyError: 'a bug' (run again with --debug for the traceback)"]
    assert cli_module.main(["--debug", "history", "v"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in broken" in err
    assert err.strip().splitlines()[-1] == "reasonlake: internal error: KeyError: 'a bug'"
