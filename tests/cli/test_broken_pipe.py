"""A reader that stops early (`reasonlake rules V | head -1`) ends the command quietly: exit
141, as a process SIGPIPE killed, and no "internal error" line on stderr."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_a_closed_pipe_ends_the_command_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "reasonlake.cli", "rules", str(REPO / "views" / "active_users.yaml")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    proc.stdout.close()  # before the command prints its first line: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert err == "", err
