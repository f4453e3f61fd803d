"""One writer per view: a command that writes a view takes its lease row first, and a second
writer stops (exit 1, naming the holder and since when) or waits with ``--wait``; a lease
whose holder is gone (expired, or a dead process of this machine) is taken over."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from tests.cli.helpers import ex, jsonl, simple_view

HELD_ELSEWHERE = "buildhost-7:4242:0badc0de"


def _hold(spark, home, view: str, holder: str, until_ms: int, since_ms: int = 1_795_000_000_000) -> None:
    """Another process's lease row, as its MERGE would have left it."""
    table = f"delta.`{home}/leases`"
    spark.sql(f"DELETE FROM {table} WHERE view = '{view}'")
    spark.sql(f"INSERT INTO {table} VALUES ('{view}', '{holder}', {since_ms}, {until_ms}, 'slide')")


def _rows(spark, home, view: str):
    return spark.sql(f"SELECT holder, until FROM delta.`{home}/leases` WHERE view = '{view}'").collect()


def _view_with_items(cli, tmp_path):
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "a.jsonl", [(ex("a"), ex("knows"), ex("b"), 500)])))


def test_a_second_writer_stops_naming_the_holder_then_takes_a_lease_that_ended(cli, spark, tmp_path):
    _view_with_items(cli, tmp_path)
    far = int(time.time() * 1000) + 3_600_000
    _hold(spark, cli.home, "v", HELD_ELSEWHERE, far)
    for command in (("slide", "v", "--until", "4000"), ("rebuild", "v"), ("view", "create", "--rebuild",
                                                                            str(tmp_path / "v.yaml"))):
        if command[0] == "view":  # a changed definition: rebuilding it writes the view
            (tmp_path / "v.ttl").write_text((tmp_path / "v.ttl").read_text() + f"{ex('p')} a <http://www.w3.org/2002/07/owl#TransitiveProperty> .\n")
        cli(*command, expect=1)
        assert "RL410" in cli.last_err and "process 4242 on buildhost-7" in cli.last_err, cli.last_err
        assert "--wait SECONDS" in cli.last_err
    published = spark.sql(f"SELECT count(*) AS n FROM delta.`{cli.home}/view_state` WHERE view = 'v'").first().n
    assert published == 0  # the commands stopped before writing anything

    started = time.monotonic()
    cli("slide", "v", "--until", "4000", "--wait", "1.5", expect=1)
    assert time.monotonic() - started >= 1.5
    assert "after waiting 1.5s" in cli.last_err

    _hold(spark, cli.home, "v", HELD_ELSEWHERE, int(time.time() * 1000) - 1)  # its lease ran out
    assert "1970-01-01T00:00:04" in cli("slide", "v", "--until", "4000")
    (row,) = _rows(spark, cli.home, "v")
    assert row.holder != HELD_ELSEWHERE and row.until == 0  # taken, then handed back at the command's end


def test_where_the_driver_cannot_commit_the_lease_is_taken_by_a_merge(cli, spark, tmp_path, monkeypatch):
    """The same compare-and-set through Spark (a cluster's session, a home elsewhere than a
    local folder): held elsewhere stops the slide, ended lets it take and hand back."""
    _view_with_items(cli, tmp_path)
    monkeypatch.setenv("REASONLAKE_ARROW_COMMIT", "0")
    before = spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/leases`").count()
    _hold(spark, cli.home, "v", HELD_ELSEWHERE, int(time.time() * 1000) + 3_600_000)
    cli("slide", "v", "--until", "4000", expect=1)
    assert "RL410" in cli.last_err and "process 4242 on buildhost-7" in cli.last_err, cli.last_err
    _hold(spark, cli.home, "v", HELD_ELSEWHERE, int(time.time() * 1000) - 1)
    assert "1970-01-01T00:00:04" in cli("slide", "v", "--until", "4000")
    (row,) = _rows(spark, cli.home, "v")
    assert row.holder != HELD_ELSEWHERE and row.until == 0
    operations = [r.operation for r in spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/leases`").collect()]
    assert "MERGE" in operations[: len(operations) - before]  # taken by Spark, not the driver's commit


def test_the_lease_of_a_process_of_this_machine_that_is_gone_is_taken_over(cli, spark, tmp_path):
    _view_with_items(cli, tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    pid = int(dead.stdout)
    assert not _alive(pid)
    _hold(spark, cli.home, "v", f"{socket.gethostname()}:{pid}:12345678", int(time.time() * 1000) + 3_600_000)
    assert "1970-01-01T00:00:04" in cli("slide", "v", "--until", "4000")


def test_a_process_keeps_a_fresh_lease_between_its_commands_and_hands_it_back(cli, spark, tmp_path):
    from reasonlake.api import Lakehouse
    from reasonlake.engine.store import lease

    _view_with_items(cli, tmp_path)
    lake = Lakehouse(str(cli.home), spark=spark)
    lake.slide("v", until=4000)
    (row,) = _rows(spark, cli.home, "v")
    assert row.holder == lease.HOLDER and row.until > time.time() * 1000
    # a second call within the lease's first half takes no new one: the row is unchanged
    version = spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/leases` LIMIT 1").first().version
    lake.slide("v", until=5000)
    assert spark.sql(f"DESCRIBE HISTORY delta.`{cli.home}/leases` LIMIT 1").first().version == version
    lake.release()
    assert [r.until for r in _rows(spark, cli.home, "v")] == [0]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_takers_that_read_the_same_row_cannot_both_commit(cli, spark, tmp_path):
    """The compare-and-set under the lease: both read the table, then both commit a new row;
    the home's writer of the leases (delta-rs on a local home: ``local_folder.DRIVER_TABLES``)
    lets the first through and refuses the second as a race (retried by the taker)."""
    import threading

    import polars as pl

    from reasonlake.engine.store import access
    from reasonlake.errors import ConcurrentWriteError

    _view_with_items(cli, tmp_path)
    cli("slide", "v", "--until", "4000")  # its lease left a row
    both_read = threading.Barrier(2)
    outcome = {}

    def take_as(name: str) -> None:
        def change(rows):
            both_read.wait(timeout=60)
            return rows.with_columns(pl.lit(name).alias("holder")), "committed"
        try:
            outcome[name] = access.of(spark, str(cli.home)).rewrite_small(f"{cli.home}/leases", change)
        except Exception as exc:
            outcome[name] = ConcurrentWriteError.race_in(exc) or repr(exc)

    threads = [threading.Thread(target=take_as, args=(name,)) for name in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcome.values()) in (["CommitFailedError", "committed"],
                                        ["ConcurrentAppendException", "committed"]), outcome
    (winner,) = [name for name, result in outcome.items() if result == "committed"]
    assert [r.holder for r in _rows(spark, cli.home, "v")] == [winner]


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(3)
def test_two_slide_processes_started_together_process_each_close_once(cli, tmp_path):
    """Two `reasonlake slide` processes (each its own JVM) on one view, started at once,
    the second waiting for the first's lease: every close is processed by exactly one of
    them, neither fails, and the view equals a rebuild."""
    cli("view", "create", str(simple_view(tmp_path)))
    cli("ingest", "s", str(jsonl(tmp_path / "a.jsonl", [(ex(f"a{i}"), ex("knows"), ex(f"a{i + 1}"), 500 + 700 * i)
                                                         for i in range(40)])))
    env = {**os.environ, "REASONLAKE_DRIVER_MEMORY": "1g"}
    argv = [sys.executable, "-m", "reasonlake.cli", "--home", str(cli.home), "slide", "v", "--until", "30000",
            "--wait", "300"]
    runs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    processed = [line.split()[0] for out, _ in outputs for line in out.splitlines()
                 if line[:1].isdigit()]
    assert sorted(processed) == sorted(set(processed)), outputs  # no close twice
    assert len(processed) == 27, outputs  # closes 4 s ... 30 s, each once
    slid = sorted(cli("export", "v").splitlines())
    cli("rebuild", "v")
    assert sorted(cli("export", "v").splitlines()) == slid


def test_a_released_lease_goes_to_the_longest_waiter(cli, spark, tmp_path, monkeypatch):
    """Those waiting for a lease queue (a ticket row each): once it is free, the one waiting
    longest takes it, not whoever polls first; a command that does not wait does not jump the
    queue; a waiter that gives up leaves it."""
    from reasonlake.engine.store import lease
    from reasonlake.engine.store.home import Home
    from reasonlake.errors import WriterBusyError

    home = Home(spark=spark, root=str(cli.home))
    now = int(time.time() * 1000)

    def attempt(who, since=None):
        monkeypatch.setattr(lease, "HOLDER", f"host-{who}:1:{who}")
        found = lease._attempt(home, "v", "ingest", since)
        return None if found is None else found.holder.split(":")[-1]

    def as_(who):
        monkeypatch.setattr(lease, "HOLDER", f"host-{who}:1:{who}")

    assert attempt("a") is None  # a holds it
    assert attempt("b", now - 2000) == "a"  # b waits (longest), then c
    assert attempt("c", now - 1000) == "a"
    as_("a")
    lease._hand_back(home, "v")
    assert attempt("c", now - 1000) == "b", "the later waiter took the lease before the longer one"
    assert attempt("d") == "b", "a command that does not wait jumped the queue"
    assert attempt("b", now - 2000) is None  # b's turn; its ticket goes
    assert sorted(r.holder for r in _rows(spark, cli.home, "v (waiting)")) == ["host-c:1:c"]
    as_("b")
    lease._hand_back(home, "v")
    assert attempt("c", now - 1000) is None
    as_("e")
    with pytest.raises(WriterBusyError, match="host-c"):
        lease.take(home, "v", "ingest", wait_s=0.3)
    assert "host-e:1:e" not in {r.holder for r in _rows(spark, cli.home, "v (waiting)")}
