"""The home's command server, started by the first command that needs Spark.

A command that starts Spark in its own process pays 10-15 s (two cores) before its work;
over the home's command server (``reasonlake server``, a Spark Connect server) the same
command answers in about two seconds. A user at a terminal should not have to know that:
the first such command on a local home starts the server itself (its first answer comes
as late as it would have in its own process, a few seconds later at most), says so on
stderr in one line, and the server stops by itself after ``IDLE_MINUTES`` without a
command, so nothing is left running that the user did not hear about.

Off a terminal (a script, a scheduled job, a test) a command runs in its own process as
before unless ``REASONLAKE_SERVER=auto`` asks for the server there too;
``REASONLAKE_SERVER=off`` never starts one (a running one is still used), and
``--in-process`` neither starts nor uses one.
"""
from __future__ import annotations

import sys
import time

from reasonlake import settings
from reasonlake.errors import UsageError

IDLE_MINUTES = 30
# the verbs whose work needs Spark before anything else (the others answer from the home's
# files in their own process, decision 0071, and start Spark only for large work)
SPARK_FIRST = frozenset({"init", "sql", "validate", "view", "register", "rebuild", "repair", "vacuum"})
CHOICES = ("terminal", "auto", "off")


def wanted(args) -> bool:
    """Whether this command may start the home's server (it still may find one running)."""
    choice = settings.text("REASONLAKE_SERVER").strip().lower() or "terminal"
    if choice not in CHOICES:
        raise UsageError(f"REASONLAKE_SERVER={choice!r}: give one of {', '.join(CHOICES)} (terminal: start "
                         "the home's command server from a terminal only; auto: from scripts too; off: never)")
    if getattr(args, "in_process", False) or choice == "off" or args.command not in SPARK_FIRST:
        return False
    if args.command == "init" and getattr(args, "catalog", None):  # a metastore the server must open at its start
        return False
    return choice == "auto" or sys.stderr.isatty()


def start_for(lake) -> None:
    """Start the home's server for this and the next commands, when none runs and this
    process would use one; one line on stderr says so."""
    if not lake.could_use_server():
        return
    began = time.perf_counter()
    found, started = lake.start_server(idle=IDLE_MINUTES * 60, warm_up=False)
    if started:
        print(f"reasonlake: started this home's command server ({found.url}, pid {found.pid}) in "
              f"{time.perf_counter() - began:.0f} s: the next commands answer through it; it stops after "
              f"{IDLE_MINUTES} minutes without one (`reasonlake server stop` ends it now; --in-process runs a "
              "command without it)", file=sys.stderr)
