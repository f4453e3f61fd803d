"""A slide killed in the middle, then re-run, gives the table an uninterrupted run gives."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from reasonlake.engine.process import faults
from tests.cli.helpers import TYPE, ex, jsonl, simple_view
from reasonlake.engine.store import repair_tables

pytestmark = pytest.mark.slow

# How long a subprocess may take to start its JVM and reach a fault point.
REACH_TIMEOUT = 300


def _env(env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    env.setdefault("REASONLAKE_DRIVER_MEMORY", "1g")
    return env


def _cmd(home, *args):
    return [sys.executable, "-m", "reasonlake.cli", "--home", str(home), *args]


def _subprocess_cli(home, *args, env_extra=None):
    proc = subprocess.Popen(_cmd(home, *args), env=_env(env_extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out.decode(), err.decode()


def _killed_at(home, tmp_path, point, *args, env_extra=None):
    """Run ``reasonlake ARGS`` in its own process group until the slide reports reaching the
    fault point ``point``, then SIGKILL the group (the driver and its JVM)."""
    mark = tmp_path / f"fault-{point.replace(' ', '-')}-{time.monotonic_ns()}.mark"
    log = tmp_path / f"{mark.stem}.log"
    env = {**(env_extra or {}), faults.POINT_ENV: point, faults.MARK_ENV: str(mark)}
    with open(log, "wb") as output:  # a file, not a pipe: a full pipe would block the process
        proc = subprocess.Popen(_cmd(home, *args), env=_env(env), stdout=output, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + REACH_TIMEOUT
        while not (mark.exists() and faults.mark_line(point) in mark.read_text()):
            if proc.poll() is not None:
                pytest.fail(f"`{' '.join(args)}` exited with code {proc.returncode} before reaching fault "
                            f"point {point!r}; output:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"`{' '.join(args)}` did not reach fault point {point!r} within "
                            f"{REACH_TIMEOUT} s; output:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and its JVM, no clean-up
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"not killed (exit {proc.returncode}):\n{log.read_text()[-3000:]}"


def _content(cli, view, close):
    return Counter(cli("export", view, "--close", str(close)).splitlines())


def _counts(cli, view):
    """`history VIEW`, a tuple per close of what it counts (admitted, expired, derived,
    renewed, rounds, late, violations, repairs) with the close and its mode: everything but
    the table version it published and its seconds, which a redone close may not share."""
    lines = cli("history", view).splitlines()[1:]
    return [(f[0], *f[2:9], *f[10:12]) for f in (line.split() for line in lines)]


def _home(cli):
    from reasonlake.engine.store.home import Home

    return Home(spark=cli_spark(), root=str(cli.home))


def _same_rows(a, b):
    """Equal as multisets: both directions of exceptAll."""
    assert a.columns == b.columns
    extra, missing = a.exceptAll(b), b.exceptAll(a)
    assert extra.isEmpty() and missing.isEmpty(), (
        f"only in the first: {extra.collect()}\nonly in the second: {missing.collect()}")


def test_crash_after_each_step_then_rerun(cli, tmp_path):
    """An owl2rl slide crashed after its expiry (close 5000), after its reasoning (close 6000)
    and after its publish (close 7000, the close's violation recorded by then), each re-run:
    the same table, violations and history counts (what each redone close expired, derived,
    ...) as a slide that never crashed. The re-runs are in this process, whose caches have
    seen the home before each crash (the crashed process's commits must be seen);
    test_killed_at_fault_points_then_rerun re-runs in a new process."""
    from tests.cli.helpers import violations

    tbox = (
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        f"<{ex('next')[1:-1]}> a owl:TransitiveProperty .\n"
        f"<{ex('Red')[1:-1]}> owl:disjointWith <{ex('Blue')[1:-1]}> .\n"
    )
    for name in ("crashy", "steady"):
        simple_view(tmp_path, name=name, width="3s", tbox=tbox, profile="owl2rl")
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex(f"n{t}"), ex("next"), ex(f"n{t + 1}"), t * 1000) for t in range(1, 8)]
    events += [(ex("n5"), TYPE, ex("Red"), 4500), (ex("n5"), TYPE, ex("Blue"), 5500)]  # a violation from 6000
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "crashy", "--until", "4000")
    cli("slide", "steady", "--until", "7000")
    for step, close in (("expire", 5000), ("reason", 6000), ("publish", 7000)):
        code, _, err = _subprocess_cli(cli.home, "slide", "crashy", "--until", str(close),
                                       env_extra={faults.CRASH_AFTER_ENV: step})
        assert code == faults.CRASH_CODE, f"the crash hook after {step!r} did not fire: {err[-2000:]}"
        cli("slide", "crashy", "--until", str(close))
    for close in (5000, 6000, 7000):
        assert _content(cli, "crashy", close) == _content(cli, "steady", close), f"close {close}"
    # each redone close counts what it did, not what was left after the crashed attempt
    assert _counts(cli, "crashy") == _counts(cli, "steady")
    found = violations(cli, "crashy")
    assert len(found) == 1 and next(iter(found))[0] == "cax-dw", found
    assert found == violations(cli, "steady")
    from reasonlake.engine.reads import read

    home = _home(cli)
    _same_rows(read.facts(home, "crashy", close=7000), read.facts(home, "steady", close=7000))


def test_ingest_of_several_files_crashed_after_its_events_then_rerun(cli, tmp_path):
    """Plain files are committed together: a crash between the events commit and the ingest
    records, then the same command again, leaves every item once."""
    files = [str(jsonl(tmp_path / f"f{n}.jsonl", [(ex(f"a{n}_{i}"), ex("p"), ex("b"), 1000 + i) for i in range(5)]))
             for n in range(3)]
    code, _, err = _subprocess_cli(cli.home, "ingest", "s", *files, env_extra={faults.CRASH_AFTER_ENV: "ingest: events"})
    assert code == faults.CRASH_CODE, f"the crash hook did not fire: {err[-2000:]}"
    cli("ingest", "s", *files)  # the re-run, in this process
    home = _home(cli)
    events = home.table("events").groupBy("file").count().collect()
    assert sorted((Path(r.file).name, r["count"]) for r in events) == [("f0.jsonl", 5), ("f1.jsonl", 5), ("f2.jsonl", 5)]
    assert sorted(r.seq for r in home.table("ingests").select("seq").collect()) == [1, 2, 3]


def cli_spark():
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def test_killed_at_fault_points_then_rerun(cli, tmp_path):
    """SIGKILLed (driver and JVM) right after the expiry, the reasoning and the publish of one
    close, each attempt starting from what the one before left; then re-run to the end: the
    table and the history's counts of every close as an uninterrupted slide's. The first
    three attempts run their close on Spark (``REASONLAKE_LOCAL_ROWS=0``), which commits
    nothing before its publish (expiry and changes in one commit); the fourth too, its rounds
    in the driver over the facts they fetch and its publish written by this process; the
    fifth and the re-run in the driver, which loads what the kills left."""
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import materialization as mat
    from reasonlake.engine.store import state

    simple_view(tmp_path, name="killed")
    simple_view(tmp_path, name="whole")
    for name in ("killed", "whole"):
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 500) for t in range(1, 16)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "whole", "--until", "8000")
    cli("slide", "killed", "--until", "4000")
    home = _home(cli)
    recorded = state.lineage(home, "killed")[-1]
    assert recorded.close == 4000
    on_spark = {"REASONLAKE_LOCAL_ROWS": "0"}
    # the table on Spark, the rounds in the driver over the facts they fetch, the touched
    # panes written by this process (decision 0057)
    fetching = {**on_spark, "REASONLAKE_NEIGHBOURHOOD_ROWS": "1000000"}
    for point, env in (("expire", on_spark), ("reason", on_spark), ("publish", on_spark), ("publish", fetching),
                       ("publish", None)):
        _killed_at(cli.home, tmp_path, point, "slide", "killed", "--until", "8000", env_extra=env)
        # the kill landed inside close 5000: nothing recorded for it; the table holds a commit
        # no recorded close names once a publish ran
        assert state.lineage(home, "killed")[-1] == recorded, f"killed at {point}: a close was recorded"
        written = mat.version(home, "killed") > recorded.version
        assert written == (point == "publish"), f"killed at {point}: the table's version {mat.version(home, 'killed')}"
    code, _, err = _subprocess_cli(cli.home, "slide", "killed", "--until", "8000")
    assert code == 0, err
    closes = [r.close for r in state.lineage(home, "killed")]
    assert closes == [r.close for r in state.lineage(home, "whole")] and closes[-1] == 8000
    for close in (5000, 6000, 7000, 8000):
        assert _content(cli, "killed", close) == _content(cli, "whole", close), f"close {close}"
    assert _counts(cli, "killed") == _counts(cli, "whole")
    _same_rows(read.facts(home, "killed", close=8000), read.facts(home, "whole", close=8000))


def test_repair_close_crashed_twice_then_rerun(cli, tmp_path):
    """A newest-wins close that removes an old item (delete and re-derive) SIGKILLed after
    its tombstones are written, re-run and killed after its repair log is written (the table
    published, the close not recorded yet), re-run to the end: the same table, tombstones,
    repair log and history counts as an uninterrupted view."""
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import state
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
    home = _home(cli)

    def tombstones(view):
        return home.spark.read.format("delta").load(repair_tables.removed_path(home, view))

    def log(view):  # the version of the table a close published may differ after a crash
        return home.spark.read.format("delta").load(repair_tables.repairs_path(home, view)).drop("version")

    recorded = state.lineage(home, "crashy")[-1]
    assert recorded.close == 3000
    for point, written in (("tombstones", tombstones), ("repair log", log)):
        _killed_at(cli.home, tmp_path, point, "slide", "crashy", "--until", "4000")
        assert state.lineage(home, "crashy")[-1] == recorded, f"killed at {point}: a close was recorded"
        assert written("crashy").count() == 1, f"killed at {point}: its write is not there"
    cli("slide", "crashy", "--until", "4000")  # the re-run, in this process
    assert [r.close for r in state.lineage(home, "crashy")] == [3000, 4000]
    assert _counts(cli, "crashy") == _counts(cli, "steady")
    assert _content(cli, "crashy", 4000) == _content(cli, "steady", 4000)
    assert f"{ex('r')} {ex('status')} {ex('low')} ." not in _content(cli, "crashy", 4000)
    _same_rows(read.facts(home, "crashy", close=4000), read.facts(home, "steady", close=4000))
    assert tombstones("crashy").count() == 1
    _same_rows(tombstones("crashy"), tombstones("steady"))
    assert log("crashy").count() == 1  # logged once, not once per attempt
    _same_rows(log("crashy"), log("steady"))
    # the version it names is the one the close recorded, not the killed attempt's publish
    logged = home.spark.read.format("delta").load(repair_tables.repairs_path(home, "crashy")).first().version
    assert logged == state.lineage(home, "crashy")[-1].version
    assert _content(cli, "crashy", 4000) == Counter(cli("export", "crashy", "--version", str(logged)).splitlines())


def test_runner_killed_mid_batch_then_restarted(cli, tmp_path, capsys):
    """`reasonlake run` SIGKILLed after a micro-batch's ingest (before its checkpoint and its
    slide), restarted and SIGKILLed after the next batch's events (before its ingest record),
    restarted to the end: no item lost, none twice, the tables of an uninterrupted ingest and
    slide of the same files."""
    from tests.conftest import CliRunner

    incoming = tmp_path / "incoming"
    incoming.mkdir()

    def arrive(n):
        rows = [{"s": ex(f"a{n}{i}"), "p": ex("knows"), "o": ex(f"b{n}{i}"), "ts": 2000 * n + 250 * i}
                for i in range(3)]
        (incoming / f"part-{n}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n{bad\n")

    simple_view(tmp_path, name="r", width="3s")
    cli("view", "create", str(tmp_path / "r.yaml"))
    run = ("run", "r", "--source", str(incoming))
    arrive(1)
    arrive(2)
    _killed_at(cli.home, tmp_path, "run: ingested", *run)
    arrive(3)
    _killed_at(cli.home, tmp_path, "ingest: events", *run)
    cli(*run)  # the restart, in this process
    reference = CliRunner(tmp_path / "reference", capsys)
    reference("init")
    reference("view", "create", str(tmp_path / "r.yaml"))
    reference("ingest", "s", incoming.as_uri())
    reference("slide", "r", "--until", "6500")
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import state
    from reasonlake.engine.store.home import Home

    home, whole = _home(cli), Home(spark=cli_spark(), root=str(reference.home))
    assert [r.close for r in state.lineage(home, "r")] == [r.close for r in state.lineage(whole, "r")]
    assert state.lineage(home, "r")[-1].close == 6000
    for table, dropped in (("events", ()), ("quarantine", ("at",)), ("ingests", ("at",))):
        _same_rows(home.table(table).drop(*dropped), whole.table(table).drop(*dropped))
    assert home.table("events").count() == 9
    for close in (3000, 4000, 5000, 6000):
        assert _content(cli, "r", close) == _content(reference, "r", close), f"close {close}"
    _same_rows(read.facts(home, "r", close=6000), read.facts(whole, "r", close=6000))


def test_init_crashed_after_a_migration_ran_then_rerun(cli, tmp_path):
    """Migration 5 adds a table and columns: killed after they exist but before the migration
    is recorded, `init` again records it without failing on them, and the home works."""
    from reasonlake.engine.store import migrations
    from tests.conftest import CliRunner

    home = tmp_path / "fresh"
    code, _, err = _subprocess_cli(home, "init", env_extra={faults.CRASH_AFTER_ENV: "init: migration 5"})
    assert code == faults.CRASH_CODE, f"the crash hook did not fire: {err[-2000:]}"
    recorded = cli_spark().read.format("delta").load(str(home / "_migrations")).select("version").collect()
    assert sorted(r.version for r in recorded) == [1, 2, 3, 4]
    fresh = CliRunner(home, cli.capsys)
    fresh("init")  # the re-run, in this process
    recorded = cli_spark().read.format("delta").load(str(home / "_migrations")).select("version").collect()
    assert sorted(r.version for r in recorded) == [v for v, _ in migrations.available()]
    fresh("view", "create", str(simple_view(tmp_path)))
    fresh("ingest", "s", str(jsonl(tmp_path / "e.jsonl", [(ex("a"), ex("knows"), ex("b"), 1000)])))
    fresh("slide", "v", "--until", "4000")
    assert f"{ex('a')} {TYPE} {ex('Agent')} ." in fresh("export", "v")


def test_view_create_crashed_then_rerun_finishes_it(cli, tmp_path):
    """`view create` killed half-way: a new view after its tables and before its definition
    (no view yet: the re-run creates it), a changed one with --rebuild after saving the new
    definition and before the tables match it (slides refuse the view meanwhile, naming the
    fix, and the same `view create` again, no --rebuild needed, finishes it); both then equal
    a view created without a crash."""
    from reasonlake.engine.reads import read

    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 1000) for t in range(1, 7)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for name in ("crashy", "steady"):
        simple_view(tmp_path, name=name)
    cli("view", "create", str(tmp_path / "steady.yaml"))
    code, _, err = _subprocess_cli(cli.home, "view", "create", str(tmp_path / "crashy.yaml"),
                                   env_extra={faults.CRASH_AFTER_ENV: "view create: tables"})
    assert code == faults.CRASH_CODE, f"the crash hook did not fire: {err[-2000:]}"
    cli("slide", "crashy", "--until", "4000", expect=1)
    assert "unknown view 'crashy'" in cli.last_err
    assert "created" in cli("view", "create", str(tmp_path / "crashy.yaml"))
    for name in ("crashy", "steady"):
        cli("slide", name, "--until", "5000")
    assert _content(cli, "crashy", 5000) == _content(cli, "steady", 5000)

    changed = ("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
               f"<{ex('knows')[1:-1]}> rdfs:range <{ex('Person')[1:-1]}> .\n")
    for name in ("crashy", "steady"):
        simple_view(tmp_path, name=name, tbox=changed)
    cli("view", "create", str(tmp_path / "steady.yaml"), "--rebuild")
    code, _, err = _subprocess_cli(cli.home, "view", "create", str(tmp_path / "crashy.yaml"), "--rebuild",
                                   env_extra={faults.CRASH_AFTER_ENV: "view create: saved"})
    assert code == faults.CRASH_CODE, f"the crash hook did not fire: {err[-2000:]}"
    cli("slide", "crashy", "--until", "6000", expect=1)
    assert "stopped before it finished" in cli.last_err
    cli("view", "create", str(tmp_path / "crashy.yaml"))  # the same call, finished
    for name in ("crashy", "steady"):
        cli("slide", name, "--until", "6000")
    for close in (5000, 6000):
        assert _content(cli, "crashy", close) == _content(cli, "steady", close), f"close {close}"
    assert f"{ex('b5')} {TYPE} {ex('Person')} ." in _content(cli, "crashy", 6000)
    home = _home(cli)
    _same_rows(read.facts(home, "crashy", close=6000), read.facts(home, "steady", close=6000))


def test_rebuild_crashed_after_publishing_then_slide_or_rerun(cli, tmp_path):
    """A rebuild killed after it published the window but before it recorded its close: at
    the last close, the next slide goes on from it; rewound to an earlier close (the table no
    longer holds the recorded one), the slide stops naming the fix, and the rebuild again
    finishes it. Either way the closes equal an uninterrupted view's."""
    from reasonlake.engine.reads import read

    events = [(ex(f"a{t}"), ex("knows"), ex(f"b{t}"), t * 500) for t in range(1, 19)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for name in ("crashy", "steady"):
        simple_view(tmp_path, name=name)
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
        cli("slide", name, "--until", "7000")
    home = _home(cli)
    for rewind, until in ((False, 8000), (True, 9000)):
        at = ("--at", "1970-01-01T00:00:05Z", "--rewind") if rewind else ()
        code, _, err = _subprocess_cli(cli.home, "rebuild", "crashy", *at,
                                       env_extra={faults.CRASH_AFTER_ENV: "rebuild: published"})
        assert code == faults.CRASH_CODE, f"the crash hook did not fire: {err[-2000:]}"
        if rewind:
            cli("slide", "crashy", "--until", str(until), expect=1)
            assert "stopped before recording" in cli.last_err and "--rewind" in cli.last_err, cli.last_err
            cli("rebuild", "crashy", *at)
        for name in ("crashy", "steady"):
            cli("slide", name, "--until", str(until))
        for close in range(until - 2000, until + 1, 1000):
            assert _content(cli, "crashy", close) == _content(cli, "steady", close), f"close {close}"
        _same_rows(read.facts(home, "crashy", close=until), read.facts(home, "steady", close=until))


def test_repair_job_crashed_at_each_step_then_rerun(cli, tmp_path):
    """`reasonlake repair` crashed after it published the repaired window, again after its
    repair log, again after its tombstones (its close not recorded yet), then run to the end:
    the same table, tombstones, repair log and history as a repair that ran once."""
    from reasonlake.declare.view import load_view
    from reasonlake.engine.reads import read
    from reasonlake.engine.jobs.rebuild import rebuild
    from reasonlake.engine.store import state
    from reasonlake.engine.jobs.views import _save
    from tests.conftest import write

    prefixes = ("@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
    write(tmp_path / "o.ttl", prefixes + ":A rdfs:subClassOf :Top .\n")
    for name in ("crashy", "steady"):
        write(tmp_path / f"{name}.yaml", f"name: {name}\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\n"
              "repair: newest-wins\nwindow: {width: 3s, slide: 1s, start: -1000}\n")
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
    events = [(ex("a"), TYPE, ex("A"), 1000), (ex("a"), TYPE, ex("B"), 2000), (ex("b"), TYPE, ex("A"), 2000)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    home = _home(cli)
    # A window its repairs have not seen (what the job is for): a disjointness the view
    # learns, saved and rebuilt without the repair `view create --rebuild` would run.
    write(tmp_path / "o.ttl", prefixes + ":A rdfs:subClassOf :Top . :Top owl:disjointWith :B .\n")
    for name in ("crashy", "steady"):
        cli("slide", name, "--until", "2000")
        _save(home, load_view(tmp_path / f"{name}.yaml"))
        rebuild(home, name, None, now=2000)
    assert "removed 1 item(s)" in cli("repair", "steady")

    def tombstones(view):
        return home.spark.read.format("delta").load(repair_tables.removed_path(home, view))

    def log(view):  # the version a repair published differs between the two views
        return home.spark.read.format("delta").load(repair_tables.repairs_path(home, view)).drop("version")

    for point in ("repair job: published", "repair job: logged", "repair job: tombstones"):
        code, _, err = _subprocess_cli(cli.home, "repair", "crashy", env_extra={faults.CRASH_AFTER_ENV: point})
        assert code == faults.CRASH_CODE, f"the crash hook at {point!r} did not fire: {err[-2000:]}"
        assert state.lineage(home, "crashy")[-1].mode == "rebuild", f"crashed at {point}: a close was recorded"
    assert "removed 1 item(s)" in cli("repair", "crashy")  # the re-run, in this process

    def closes(view):
        return [(r.close, r.mode, r.repairs) for r in state.lineage(home, view)]

    assert closes("crashy") == closes("steady") and closes("crashy")[-1][1:] == ("repair", 1)
    assert _content(cli, "crashy", 2000) == _content(cli, "steady", 2000)
    assert f"{ex('a')} {TYPE} {ex('A')} ." not in _content(cli, "crashy", 2000)
    _same_rows(read.facts(home, "crashy", close=2000), read.facts(home, "steady", close=2000))
    assert tombstones("crashy").count() == 1  # written once, not once per attempt
    _same_rows(tombstones("crashy"), tombstones("steady"))
    assert log("crashy").count() == 1
    _same_rows(log("crashy"), log("steady"))
    # logged by a killed attempt, it names the version the repair recorded, not that attempt's
    logged = home.spark.read.format("delta").load(repair_tables.repairs_path(home, "crashy")).first().version
    assert logged == state.lineage(home, "crashy")[-1].version
    assert "nothing to repair" in cli("repair", "crashy")


@pytest.mark.minutes(3)
def test_view_create_rebuild_crashed_in_its_repair_then_rerun(cli, tmp_path):
    """`view create --rebuild` of a view that learns a disjointness, killed in its repair job
    after the tombstones (its rebuild recorded, the repair's close not), run again and killed
    after the repair's close (the definition not yet saved as done), then run to the end: the
    same closes (a rebuild, then a repair of one item), table, tombstones and repair log as an
    uninterrupted call. A second rebuild would take the sequence number the repair's
    tombstones carry and find no conflict left."""
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import state
    from tests.conftest import write

    prefixes = ("@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")

    def declare(tbox):
        write(tmp_path / "o.ttl", prefixes + tbox)
        for name in ("crashy", "steady"):
            write(tmp_path / f"{name}.yaml", f"name: {name}\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\n"
                  "repair: newest-wins\nwindow: {width: 3s, slide: 1s, start: -1000}\n")

    declare(":A rdfs:subClassOf :Top .\n")
    events = [(ex("a"), TYPE, ex("A"), 1000), (ex("a"), TYPE, ex("B"), 2000), (ex("b"), TYPE, ex("A"), 2000)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    for name in ("crashy", "steady"):
        cli("view", "create", str(tmp_path / f"{name}.yaml"))
        cli("slide", name, "--until", "2000")
    declare(":A rdfs:subClassOf :Top . :Top owl:disjointWith :B .\n")
    cli("view", "create", str(tmp_path / "steady.yaml"), "--rebuild")
    home = _home(cli)

    for point in ("repair job: tombstones", "view create: rebuilt"):
        code, _, err = _subprocess_cli(cli.home, "view", "create", str(tmp_path / "crashy.yaml"), "--rebuild",
                                       env_extra={faults.CRASH_AFTER_ENV: point})
        assert code == faults.CRASH_CODE, f"the crash hook at {point!r} did not fire: {err[-2000:]}"
        cli("slide", "crashy", "--until", "3000", expect=1)
        assert "stopped before it finished" in cli.last_err
    assert "rebuilt" in cli("view", "create", str(tmp_path / "crashy.yaml"))

    def closes(view):
        return [(r.close, r.mode, r.repairs) for r in state.lineage(home, view)]

    assert closes("crashy") == closes("steady") and closes("crashy")[-1][1:] == ("repair", 1), closes("crashy")

    def table(path):
        return home.spark.read.format("delta").load(path)

    assert table(repair_tables.removed_path(home, "crashy")).count() == 1
    _same_rows(table(repair_tables.removed_path(home, "crashy")), table(repair_tables.removed_path(home, "steady")))
    assert table(repair_tables.repairs_path(home, "crashy")).count() == 1
    _same_rows(table(repair_tables.repairs_path(home, "crashy")).drop("version"),
               table(repair_tables.repairs_path(home, "steady")).drop("version"))
    for name in ("crashy", "steady"):
        cli("slide", name, "--until", "3000")
    for close in (2000, 3000):
        assert _content(cli, "crashy", close) == _content(cli, "steady", close), f"close {close}"
    assert f"{ex('a')} {TYPE} {ex('A')} ." not in _content(cli, "crashy", 2000)
    _same_rows(read.facts(home, "crashy", close=3000), read.facts(home, "steady", close=3000))
