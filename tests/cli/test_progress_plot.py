"""Progress and pictures: the engine tells its caller of each file an ingest parses, each
close a slide processes and each step of a rebuild or a repair, with the totals; the CLI
draws a bar from it on a terminal only (stdout unchanged, nothing under --quiet or in a
pipe); `history --plot` draws each close's counts and seconds to an image."""
from __future__ import annotations

import io
import math
import sys
from dataclasses import replace

import pytest

from tests.cli.helpers import EX, TYPE, ex, jsonl, simple_view
from tests.conftest import CliRunner, write

PNG = b"\x89PNG\r\n\x1a\n"
KNOWS = ex("knows")
PREFIXES = (
    f"@prefix : <{EX}> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
)


def _view(tmp, name, tbox):
    write(tmp / f"{name}.ttl", PREFIXES + tbox)
    return write(tmp / f"{name}.yaml", (
        f"name: {name}\nstream: {name}\nontology: [{name}.ttl]\nprofile: owl2rl\nrepair: newest-wins\n"
        "window: {width: 3s, slide: 1s, start: -3000}\n"))


class Recorder(list):
    """A progress callable keeping its calls."""

    def __call__(self, done, total, what):
        self.append((done, total, what))


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory):
    """A small view (pp): three files ingested, slid over several closes, rebuilt; a
    newest-wins view (job) built from scratch over a conflict (a rebuild decides none), then
    repaired, twice; a view never slid. The progress calls of each command."""
    from reasonlake.api import Lakehouse

    tmp = tmp_path_factory.mktemp("progress")
    lake = Lakehouse(str(tmp / "lake"), spark=spark)
    lake.init()
    lake.create_views([simple_view(tmp, "pp", stream="pp", width="3s"), simple_view(tmp, "none_yet"),
                       _view(tmp, "job", ":A owl:disjointWith :B .")])
    files = [jsonl(tmp / "a.jsonl", [(ex("a"), KNOWS, ex("b"), 1000)]),
             jsonl(tmp / "b.jsonl", [(ex("b"), KNOWS, ex("c"), 2000)]),
             jsonl(tmp / "c.jsonl", [(ex("c"), KNOWS, ex("a"), 3500), (ex("d"), KNOWS, ex("a"), 3600)])]
    calls = {name: Recorder() for name in ("ingest", "slide", "rebuild", "repair", "repair job")}
    lake.ingest("pp", files, progress=calls["ingest"])
    slid = lake.slide("pp", "1970-01-01T00:00:06Z", progress=calls["slide"])
    lake.rebuild("pp", progress=calls["rebuild"])

    lake.ingest("job", [jsonl(tmp / "job.jsonl", [(ex("a"), TYPE, ex("A"), 500), (ex("a"), TYPE, ex("B"), 1000)])])
    lake.rebuild("job", 1000)
    lake.repair("job", progress=calls["repair job"])  # a loses A, the older
    lake.repair("job", progress=calls["repair"])  # nothing left to repair
    return lake, tmp, slid, calls


def test_the_engine_tells_each_file_close_and_step_with_the_totals(lake):
    from reasonlake.plan.durations import format_time

    lake, _, slid, calls = lake
    assert calls["ingest"] == [(0, 3, ""), (1, 3, "a.jsonl"), (2, 3, "b.jsonl"), (3, 3, "c.jsonl")]
    # a slide's total is known with its last close (each next close comes from the state
    # the one before left)
    assert len(slid) >= 3, slid
    assert calls["slide"] == [(0, None, "")] + [
        (n, len(slid) if n == len(slid) else None, format_time(r.close)) for n, r in enumerate(slid, 1)]
    assert calls["rebuild"] == [(0, 5, ""), (1, 5, "admit"), (2, 5, "rounds"), (3, 5, "violations"),
                                (4, 5, "publish"), (5, 5, "record close")]
    assert calls["repair"] == [(0, 8, ""), (1, 1, "conflicts")]
    assert calls["repair job"] == [
        (0, 8, ""), (1, 8, "conflicts"), (2, 8, "admit"), (3, 8, "rounds"), (4, 8, "violations"),
        (5, 8, "publish"), (6, 8, "repair log"), (7, 8, "tombstones"), (8, 8, "record close")]
    assert lake.history("job")[-1].mode == "repair" and lake.history("job")[-1].repairs == 1
    # nothing to slide: nothing told
    nothing = Recorder()
    assert lake.slide("pp", "1970-01-01T00:00:06Z", progress=nothing) == [] and nothing == []


def test_history_plot_draws_each_close(lake, capsys):
    from reasonlake.history_plot import COUNTS, plot, series

    lake, tmp, _, _ = lake
    cli = CliRunner(str(lake.home.root), capsys)
    rows = lake.history("pp")
    out = cli("history", "pp", "--plot", str(tmp / "pp.png"))
    assert out == f"wrote a plot of {len(rows)} close(s) of view pp to {tmp / 'pp.png'}\n"
    assert (tmp / "pp.png").read_bytes()[:8] == PNG

    data = series(rows)
    assert len(rows) >= 3 and data.closes == [r.close for r in rows] and data.seconds == [r.seconds for r in rows]
    assert list(data.counts) == list(COUNTS)  # no violations, no repairs: not drawn
    for name in COUNTS:
        assert data.counts[name] == [getattr(r, name) for r in rows], name
    assert sum(data.counts["derived"]) > 0 and sum(data.counts["expired"]) > 0, data
    # what matplotlib was given: one line per series above, the seconds below
    fig = plot("pp", rows, str(tmp / "again.png"))
    counts, seconds = fig.axes
    drawn = {line.get_label(): list(line.get_ydata()) for line in counts.get_lines()}
    assert drawn == data.counts
    assert [list(line.get_ydata()) for line in seconds.get_lines()] == [data.seconds]
    assert (tmp / "again.png").read_bytes()[:8] == PNG

    # violations and repairs when a close has any; a close without violations recorded
    # (None) leaves a gap, not a zero
    some = series([replace(rows[0], violations=None), replace(rows[1], violations=2, repairs=1)])
    assert list(some.counts) == [*COUNTS, "violations", "repairs"]
    assert math.isnan(some.counts["violations"][0]) and some.counts["violations"][1] == 2
    assert some.counts["repairs"] == [0, 1]
    job = lake.history("job")
    assert series(job).counts["repairs"] == [r.repairs for r in job] == [1]

    cli("history", "pp", "--plot", str(tmp / "no" / "such" / "folder.png"), expect=1)
    assert "RL101" in cli.last_err and "does not exist" in cli.last_err, cli.last_err
    cli("history", "none_yet", "--plot", str(tmp / "none.png"), expect=1)
    assert "RL180" in cli.last_err and "no processed close" in cli.last_err, cli.last_err
    assert not (tmp / "none.png").exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_only_on_a_terminal_and_stdout_unchanged(lake, capsys, monkeypatch):
    from reasonlake.cli import build_parser
    from reasonlake.cli.show import HISTORY_HEADER, history_line
    from reasonlake.plan.durations import format_time

    lake, _, _, _ = lake
    cli = CliRunner(str(lake.home.root), capsys)

    def rebuilt() -> str:
        r = lake.history("pp")[-1]
        return (f"view pp: rematerialized from scratch at {format_time(r.close)} ({r.admitted} items, "
                f"{r.derived} derived)\n{HISTORY_HEADER}\n{history_line(r)}\n")

    out = cli("rebuild", "pp")  # stderr is no terminal here: no bar
    assert out == rebuilt()
    assert cli.last_err == "", cli.last_err

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    out = cli("rebuild", "pp")
    assert out == rebuilt()  # the bar went to stderr only
    assert "rebuild pp" in terminal.getvalue() and "5/5" in terminal.getvalue(), terminal.getvalue()

    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert cli("--quiet", "rebuild", "pp") == rebuilt()
    assert quiet.getvalue() == ""
    # --quiet after the verb too, as --home; without it, not quiet
    assert build_parser().parse_args(["rebuild", "pp", "--quiet"]).quiet is True
    assert build_parser().parse_args(["rebuild", "pp"]).quiet is False
