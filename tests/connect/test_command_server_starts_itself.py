"""The home's command server started by the first command that needs Spark (at a terminal,
``cli/command_server``), used by the next ones, and gone by itself once idle: nothing is
left running that the user did not hear about."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def _cli(home: str, *args: str, terminal: bool = False) -> tuple[str, str]:
    """(stdout, stderr) of a command in a process of its own; ``terminal``: its stderr a
    terminal, as a user's is (the default REASONLAKE_SERVER acts on that)."""
    env = {k: v for k, v in os.environ.items() if k not in ("REASONLAKE_SERVER", "SPARK_REMOTE")}
    if not terminal:
        run = subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", home, *args], env=env,
                             capture_output=True, text=True, cwd=REPO, timeout=300)
        assert run.returncode == 0, f"{args}: exit {run.returncode}\n{run.stdout}\n{run.stderr}"
        return run.stdout, run.stderr
    main, side = pty.openpty()
    try:
        run = subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", home, "--quiet", *args], env=env,
                             stdout=subprocess.PIPE, stderr=side, text=True, cwd=REPO, timeout=300)
        os.close(side)
        err = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal's other end closed: all read
                break
            if not chunk:
                break
            err += chunk
    finally:
        os.close(main)
    assert run.returncode == 0, f"{args}: exit {run.returncode}\n{run.stdout}\n{err.decode(errors='replace')}"
    return run.stdout, err.decode(errors="replace")


def _gone(pid: int) -> bool:
    return not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


@pytest.mark.minutes(3)
def test_the_first_command_at_a_terminal_starts_the_server_and_an_idle_one_stops(tmp_path):
    from reasonlake.engine.store import server

    root = str(tmp_path / "lake")
    _cli(root, "init")
    # off a terminal (a script, this test's other commands): in its own process, nothing started
    out, err = _cli(root, "sql", "SELECT count(*) AS n FROM rl_events")
    assert server.recorded(root) is None and "command server" not in err
    answer = out.splitlines()[:3]
    # at a terminal: the first command that needs Spark starts the server, in one line
    out, err = _cli(root, "sql", "SELECT count(*) AS n FROM rl_events", terminal=True)
    found = server.running(root)
    try:
        assert found is not None, err
        assert f"started this home's command server ({found.url}, pid {found.pid})" in err
        assert "stops after 30 minutes without one" in err and "--in-process" in err
        assert out.splitlines()[:3] == answer
        # the next command answers through it (its stderr says nothing more), and --in-process
        # neither uses it nor starts another
        out, err = _cli(root, "sql", "SELECT count(*) AS n FROM rl_events", terminal=True)
        assert out.splitlines()[:3] == answer and "command server" not in err
        out, err = _cli(root, "--in-process", "sql", "SELECT count(*) AS n FROM rl_events", terminal=True)
        assert out.splitlines()[:3] == answer and "command server" not in err
        assert server.running(root) == found
        # the server stopped under a command: the command says so in one line and exits at
        # once (pyspark alone would retry the gone server for ten minutes)
        env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
        long = subprocess.Popen([sys.executable, "-m", "reasonlake.cli", "--home", root, "sql",
                                 "SELECT count(*) AS n FROM range(100000000000)"], env=env, cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(8)
        assert server.stop(root) == found
        stopped = time.monotonic()
        _, err = long.communicate(timeout=120)
        assert long.returncode in (1, 2) and time.monotonic() - stopped < 60, err
        assert len(err.strip().splitlines()) == 1 and err.startswith("reasonlake: error"), err
    finally:
        server.stop(root)
    # a server started with an idle limit stops by itself that long after its last command
    found, _ = server.start(root, idle=4, warm_up=False)
    _cli(root, "sql", "SELECT count(*) AS n FROM rl_events")  # through it: its idle clock restarts
    used = (tmp_path / "lake" / server.USED_FILE).stat().st_mtime
    assert used > found.started
    deadline = time.monotonic() + 90
    while not _gone(found.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    stopped = time.time()
    log = (tmp_path / "lake" / server.LOG_FILE).read_text(errors="replace")[-2000:]
    assert _gone(found.pid), f"the idle server still runs; its log:\n{log}"
    assert "idle for 4 s: the server stops" in log and stopped - used >= 4
    assert server.recorded(root) is None
    status = subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", root, "server", "status"],
                            capture_output=True, text=True, cwd=REPO)
    assert status.returncode == 3 and status.stdout.strip() == "not running"
    misplaced = subprocess.run([sys.executable, "-m", "reasonlake.cli", "--home", root, "server", "status", "--idle",
                                "5m"], capture_output=True, text=True, cwd=REPO)
    assert misplaced.returncode == 1 and "--idle goes with `server start`" in misplaced.stderr
