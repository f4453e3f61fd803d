"""A file with quarantined rows, fixed and ingested again: only the fixed rows' items are
added (``--only-new-items``), by path and by URI, in every line format; without the flag the
ingest stops rather than add the file's items twice; and the view equals one fed the fixed
file once."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import ex, simple_view
from tests.conftest import CliRunner, write

N = 500  # good items of the file
BAD_AT = 250  # the bad row's place among them


def _rows(fmt: str, bad: bool) -> str:
    """A file of N good items and, at BAD_AT, a row that is bad (or, fixed, one more item)."""
    def item(i: int) -> tuple[str, str, str, int]:
        return ex(f"a{i}"), ex("knows"), ex(f"b{i}"), 1000 + i

    fixed = (ex("x"), ex("knows"), ex("y"), 1500)
    if fmt == "jsonl":
        rows = [json.dumps({"s": s, "p": p, "o": o, "ts": t}) for s, p, o, t in map(item, range(N))]
        s, p, o, t = fixed
        rows.insert(BAD_AT, '{"s": "%s", "p": "%s", "o": "%s", "ts": %d' % (s, p, o, t) if bad
                    else json.dumps({"s": s, "p": p, "o": o, "ts": t}))
    else:  # .ttl and .nt: one event at --ts
        rows = [f"{s} {p} {o} ." for s, p, o, _ in map(item, range(N))]
        s, p, o, _ = fixed
        rows.insert(BAD_AT, f'{s} {p} "broken .' if bad else f"{s} {p} {o} .")
    return "\n".join(rows) + "\n"


def _table(cli, name: str):
    """A system table of the CLI's home, read with the test's Spark session."""
    from pyspark.sql import SparkSession

    from reasonlake.engine.store.home import Home

    return Home(spark=SparkSession.getActiveSession(), root=str(cli.home)).table(name)


def _events(cli, where: str = "true") -> tuple[int, int]:
    """How many events, and how many distinct (s, p, o, ts) among them."""
    events = _table(cli, "events").where(where)
    return events.count(), events.select("s", "p", "o", "ts").distinct().count()


def _admitted(cli, view: str) -> int:
    lines = cli("history", view).splitlines()
    column = lines[0].split().index("admitted")
    return sum(int(line.split()[column]) for line in lines[1:])


def _other_home(cli, tmp_path: Path, name: str) -> CliRunner:
    other = CliRunner(tmp_path / name, cli.capsys)
    other("init")
    return other


# by URI the executors parse and compare (``spark_ingest``), by path the driver (``ingest``);
# the slow crash test below takes a JSONL file both ways
# Turtle by path and JSONL in the default run; by URI (a Spark read) and N-Triples in the slow one
@pytest.mark.parametrize("fmt, by", [("ttl", "path"), pytest.param("ttl", "uri", marks=pytest.mark.slow),
                                     pytest.param("nt", "path", marks=pytest.mark.slow), ("jsonl", "path")])
def test_a_fixed_file_adds_only_the_fixed_rows_items(cli, tmp_path, fmt, by):
    view = simple_view(tmp_path)
    cli("view", "create", str(view))
    source = write(tmp_path / "in" / f"data.{fmt}", _rows(fmt, bad=True))
    name = source.as_uri() if by == "uri" else str(source)
    ts = ["--ts", "1000"] if fmt != "jsonl" else []
    out = cli("ingest", "s", name, *ts)
    assert f"{N} items, 1 quarantined (ingest #1)" in out, out
    # the advice says what following it does
    assert (f"to add the 1 quarantined row once fixed: correct them in {'file:' if by == 'uri' else ''}"
            in out), out
    assert (f"ingest it again with --only-new-items{' and the same --ts' if ts else ''}: the {N} items already "
            "ingested from it are left out and only the fixed rows' items are added") in out, out
    if fmt == "ttl":
        reason = _table(cli, "quarantine").first().reason
        assert "ingest the file again with --only-new-items" in reason, reason

    source.write_text(_rows(fmt, bad=False))
    cli("ingest", "s", name, *ts, expect=1)  # without a flag: refused, nothing written
    err = cli.last_err.strip()
    assert err.startswith("reasonlake: error RL131: ") and len(err.splitlines()) == 1, err
    assert f"{N} of its {N + 1} items were already ingested into stream 's' from a file of this name (ingest #1)" in err
    assert "--only-new-items to add only the 1 not yet ingested" in err and "--allow-duplicate-file" in err
    assert _events(cli) == (N, N)

    out = cli("ingest", "s", name, *ts, "--only-new-items")
    assert f"1 items, 0 quarantined (ingest #2; {N} items already ingested from it left out)" in out, out
    assert _events(cli) == (N + 1, N + 1)
    assert [(r.seq, r.items) for r in _table(cli, "ingests").orderBy("seq").collect()] == [(1, N), (2, 1)]
    added = [(r.s, r.o) for r in _table(cli, "events").where("ingest_seq = 2").collect()]
    assert added == [(ex("x"), ex("y"))], added
    # the same again: nothing new, nothing written
    out = cli("ingest", "s", name, *ts, "--only-new-items")
    assert "nothing new (this content went in as ingest #2)" in out, out
    assert _table(cli, "ingests").count() == 2

    # the view equals one fed the fixed file once
    once = _other_home(cli, tmp_path, "once")
    once("view", "create", str(view))
    once("ingest", "s", str(source), *ts)
    for home in (cli, once):
        home("slide", "v", "--until", "4000")
    assert sorted(cli("export", "v").splitlines()) == sorted(once("export", "v").splitlines())
    assert _admitted(cli, "v") == _admitted(once, "v") == N + 1


def test_flags_and_times_that_would_add_items_twice_are_refused(cli, tmp_path):
    source = write(tmp_path / "data.ttl", _rows("ttl", bad=True))
    cli("ingest", "s", str(source), "--ts", "1000")
    source.write_text(_rows("ttl", bad=False))
    cli("ingest", "s", str(source), "--ts", "1000", "--only-new-items", "--allow-duplicate-file", expect=1)
    assert "RL101" in cli.last_err and "give one" in cli.last_err
    cli("ingest", "s", str(source), "--ts", "2000", "--only-new-items", expect=1)
    assert "RL130" in cli.last_err and "give --ts 1970-01-01T00:00:01.000Z" in cli.last_err, cli.last_err
    assert _events(cli) == (N, N)
    # at another time every item is a new event: without the flag, all of it goes in
    assert f"{N + 1} items" in cli("ingest", "s", str(source), "--ts", "2000")
    # --allow-duplicate-file ingests all of a file again, as it always did
    source.write_text(_rows("ttl", bad=False).replace(ex("y"), ex("z")))
    cli("ingest", "s", str(source), "--ts", "2000", expect=1)
    assert "--only-new-items to add only the 1 not yet ingested" in cli.last_err
    assert f"{N + 1} items" in cli("ingest", "s", str(source), "--ts", "2000", "--allow-duplicate-file")
    assert _events(cli)[0] == N + (N + 1) * 2
    # a path and a file: URI of it are one name; items the file no longer holds are noted
    source.write_text(_rows("ttl", bad=False).replace(ex("y"), ex("w")))
    cli("ingest", "s", source.as_uri(), "--ts", "2000", expect=1)
    assert (f"{N} of its {N + 1} items were already ingested into stream 's' from a file of this name "
            "(ingest #1, #2, #3)") in cli.last_err, cli.last_err
    out = cli("ingest", "s", source.as_uri(), "--ts", "2000", "--only-new-items")
    assert f"1 items, 0 quarantined (ingest #4; {N} items already ingested from it left out)" in out, out
    # gone: the items at the first time, and x knows y, x knows z
    assert f"{N + 2} item(s) ingested from it before (ingest #1, #2, #3) are no longer in it; they stay" in out, out
    assert _events(cli)[0] == N + (N + 1) * 2 + 1


def test_blank_nodes_keep_their_names_and_a_renumbering_stops_the_ingest(cli, tmp_path):
    rows = [{"s": "_:n", "p": ex("knows"), "o": ex(f"b{i}"), "ts": 1000 + i} for i in range(3)]
    text = "\n".join(json.dumps(r) for r in rows)
    source = write(tmp_path / "blank.jsonl", text + '\n{"s": "_:n", "p": "bad"}\n')
    cli("ingest", "s", str(source))
    source.write_text(text + "\n" + json.dumps({"s": "_:n", "p": ex("knows"), "o": ex("c"), "ts": 1100}) + "\n")
    out = cli("ingest", "s", str(source), "--only-new-items")
    assert "1 items, 0 quarantined (ingest #2; 3 items already ingested from it left out)" in out, out
    subjects = [(r.ingest_seq, r.s) for r in _table(cli, "events").collect()]
    first = {s for seq, s in subjects if seq == 1}
    second = {s for seq, s in subjects if seq == 2}
    assert len(first) == 3 and len(second) == 1  # a blank node of each row, the new row's named as the first's were
    key = next(iter(first)).split(":")[3]
    assert next(iter(second)).split(":")[3] == key, (first, second)

    # Turtle numbers blank nodes in order of appearance: a fixed statement with one renames
    # those after it, and the ingest stops rather than add them again under new names
    good = [f"{ex('a')} {ex('knows')} [ {ex('name')} \"n{i}\" ] ." for i in range(3)]
    turtle = write(tmp_path / "blank.ttl", "\n".join([good[0], f'{ex("b")} {ex("knows")} [ {ex("name")} "cut .',
                                                        *good[1:]]) + "\n")
    assert "1 quarantined" in cli("ingest", "t", str(turtle), "--ts", "1000")
    turtle.write_text("\n".join([good[0], f'{ex("b")} {ex("knows")} [ {ex("name")} "fixed" ] .', *good[1:]]) + "\n")
    cli("ingest", "t", str(turtle), "--ts", "1000", "--only-new-items", expect=1)
    assert "RL130" in cli.last_err and "with blank nodes that went in from it before (ingest #3)" in cli.last_err
    assert "ingest the fixed rows alone as a file of their own" in cli.last_err
    assert _events(cli, "stream = 't'") == (6, 6)


@pytest.mark.slow
@pytest.mark.minutes(3)
@pytest.mark.parametrize("by", ["path", "uri"])
def test_a_fixed_file_ingest_killed_after_its_events_then_run_again(cli, tmp_path, by):
    """Killed between its events and its ingest record, the ingest of a fixed file run again
    records what it added, and its items are in the events once."""
    import os
    import subprocess
    import sys

    from reasonlake.engine.process import faults

    def ingest_crashed(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "REASONLAKE_DRIVER_MEMORY": "1g", faults.CRASH_AFTER_ENV: "ingest: events"}
        return subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", str(cli.home), "ingest", "s", *args],
                              env=env, capture_output=True, text=True, timeout=900)

    source = write(tmp_path / "in" / "data.jsonl", _rows("jsonl", bad=True))
    name = source.as_uri() if by == "uri" else str(source)
    cli("ingest", "s", name)
    source.write_text(_rows("jsonl", bad=False))
    crashed = ingest_crashed(name, "--only-new-items")
    assert crashed.returncode == faults.CRASH_CODE, crashed.stderr[-3000:]
    assert _events(cli) == (N + 1, N + 1) and _table(cli, "ingests").count() == 1  # its event, not its record
    again = cli("ingest", "s", name, "--only-new-items")  # the re-run, in this process
    assert f"1 items, 0 quarantined (ingest #2; {N} items already ingested from it left out)" in again
    assert _events(cli) == (N + 1, N + 1)
    assert [(r.seq, r.items) for r in _table(cli, "ingests").orderBy("seq").collect()] == [(1, N), (2, 1)]
