"""A slide killed in the middle, then re-run, gives the table an uninterrupted run gives."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.cli.helpers import ex, jsonl, simple_view

pytestmark = pytest.mark.slow


def _subprocess_cli(home, *args, env_extra=None, kill_after=None):
    env = dict(os.environ, **(env_extra or {}))
    env.setdefault("REASONLAKE_DRIVER_MEMORY", "1g")
    cmd = [sys.executable, "-m", "reasonlake.cli", "--home", str(home), *args]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    if kill_after is None:
        out, err = proc.communicate(timeout=600)
        return proc.returncode, out.decode(), err.decode()
    deadline = time.monotonic() + kill_after
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its JVM, no clean-up
    proc.wait()
    return proc.returncode, "", ""


def _content(cli, view, close):
    return cli("export", view, "--close", str(close))


@pytest.mark.parametrize("step", ["expire", "reason", "publish"])
def test_crash_after_step_then_rerun(cli, tmp_path, step):
    tbox = (
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        f"<{ex('next')[1:-1]}> a owl:TransitiveProperty .\n"
    )
    for name in ("crashy", "steady"):
        simple_view(tmp_path, name=name, width="3s", tbox=tbox)
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex(f"n{t}"), ex("next"), ex(f"n{t + 1}"), t * 1000) for t in range(1, 7)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "crashy", "--until", "4000")
    cli("slide", "steady", "--until", "6000")
    code, _, _ = _subprocess_cli(cli.home, "slide", "crashy", "--until", "6000",
                                 env_extra={"REASONLAKE_CRASH_AFTER": step})
    assert code == 70, "the crash hook did not fire"
    code, out, err = _subprocess_cli(cli.home, "slide", "crashy", "--until", "6000")
    assert code == 0, err
    for close in (5000, 6000):
        assert _content(cli, "crashy", close) == _content(cli, "steady", close)
    from reasonlake.engine import read
    from reasonlake.engine.home import Home

    home = Home(spark=cli_spark(), root=str(cli.home))
    a = read.facts(home, "crashy", close=6000)
    b = read.facts(home, "steady", close=6000)
    assert a.exceptAll(b).isEmpty() and b.exceptAll(a).isEmpty()


def cli_spark():
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def test_killed_at_random_moments_then_rerun(cli, tmp_path):
    simple_view(tmp_path, name="killed")
    simple_view(tmp_path, name="whole")
    for name in ("killed", "whole"):
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 500) for t in range(1, 16)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "whole", "--until", "8000")
    for seconds in (25, 35, 45):  # the JVM starts in ~10-20 s; then the slide is under way
        _subprocess_cli(cli.home, "slide", "killed", "--until", "8000", kill_after=seconds)
    code, _, err = _subprocess_cli(cli.home, "slide", "killed", "--until", "8000")
    assert code == 0, err
    assert _content(cli, "killed", 8000) == _content(cli, "whole", 8000)


def test_repair_close_crashed_twice_then_rerun(cli, tmp_path):
    """A newest-wins close that removes an old item (delete and re-derive) killed after the
    tombstones are written, re-run and killed after the MERGE, re-run to the end: the same
    table, tombstones and repair log as an uninterrupted view."""
    from tests.conftest import write

    tbox = (
        "@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        ":status a owl:FunctionalProperty .\n"
        ":Low owl:equivalentClass [ a owl:Restriction ; owl:onProperty :status ; owl:hasValue :low ] .\n"
    )
    write(tmp_path / "r.ttl", tbox)
    for name in ("crashy", "steady"):
        write(tmp_path / f"{name}.yaml", f"name: {name}\nstream: s\nontology: [r.ttl]\nprofile: owl2rl\n"
              "repair: newest-wins\nwindow: {width: 3s, slide: 1s, start: 0}\n")
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex("r"), ex("status"), ex("low"), 3000), (ex("q"), ex("status"), ex("low"), 3000),
              (ex("r"), ex("status"), ex("high"), 4000)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "crashy", "--until", "3000")
    cli("slide", "steady", "--until", "4000")
    for step in ("reason", "publish"):
        code, _, _ = _subprocess_cli(cli.home, "slide", "crashy", "--until", "4000",
                                     env_extra={"REASONLAKE_CRASH_AFTER": step})
        assert code == 70, "the crash hook did not fire"
    code, out, err = _subprocess_cli(cli.home, "slide", "crashy", "--until", "4000")
    assert code == 0, err
    assert _content(cli, "crashy", 4000) == _content(cli, "steady", 4000)
    assert f"{ex('r')} {ex('status')} {ex('low')} ." not in _content(cli, "crashy", 4000)
    from reasonlake.engine import read, repair
    from reasonlake.engine.home import Home

    home = Home(spark=cli_spark(), root=str(cli.home))
    a, b = read.facts(home, "crashy", close=4000), read.facts(home, "steady", close=4000)
    assert a.exceptAll(b).isEmpty() and b.exceptAll(a).isEmpty()
    ta, tb = repair.tombstones(home, "crashy"), repair.tombstones(home, "steady")
    assert ta.count() == 1 and ta.exceptAll(tb).isEmpty() and tb.exceptAll(ta).isEmpty()
    log = home.spark.read.format("delta").load(repair.repairs_path(home, "crashy"))
    assert log.count() == 1  # logged once, not once per attempt
