"""Fault points: named places where a test stops the process (crash safety).

The slide calls ``reached(name)`` after each step whose effect a crash could cut short:
``expire``, ``reason``, ``publish``, in a repair close ``tombstones`` and ``repair log``, and
in a view with registered queries ``queries`` (their rows written, the close not recorded);
an ingest after its events (``ingest: events``), the runner after a micro-batch's ingest,
before its slide (``run: ingested``), ``init`` after migration N ran and before it is
recorded (``init: migration N``), ``view create`` after a new view's tables, before its
definition (``view create: tables``), and for a changed view after saving the definition
(``view create: saved``) and after rebuilding (``view create: rebuilt``),
and ``rebuild`` after publishing, before recording its close (``rebuild: published``).
Nothing happens unless the environment names that point:

- ``REASONLAKE_CRASH_AFTER=<name>``: exit at once with code 70 (``os._exit``: no clean-up,
  no Python finalizers, as a killed process).
- ``REASONLAKE_FAULT_POINT=<name>``: write the line ``reasonlake fault point <name> reached``
  (flushed) to the file ``REASONLAKE_FAULT_MARK`` names (else to stderr), then block, so
  that a test can kill the process group (the driver and its JVM) with SIGKILL exactly
  there. A process nobody kills exits with code 71 after ``REASONLAKE_FAULT_HOLD`` seconds
  (600 by default), so a failed test leaves no process behind for ever.
"""
from __future__ import annotations

import os
import sys
import time

from reasonlake import settings

CRASH_AFTER_ENV = "REASONLAKE_CRASH_AFTER"
POINT_ENV = "REASONLAKE_FAULT_POINT"
MARK_ENV = "REASONLAKE_FAULT_MARK"
HOLD_ENV = "REASONLAKE_FAULT_HOLD"
CRASH_CODE = 70
UNKILLED_CODE = 71


def mark_line(point: str) -> str:
    return f"reasonlake fault point {point} reached"


def reached(point: str) -> None:
    """The slide is past ``point``: crash or block there if the environment asks for it."""
    if settings.text(CRASH_AFTER_ENV) == point:
        os._exit(CRASH_CODE)
    if settings.text(POINT_ENV) != point:
        return
    line = f"{mark_line(point)} (pid {os.getpid()})\n"
    target = settings.text(MARK_ENV)
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())
    else:
        sys.stderr.write(line)
        sys.stderr.flush()
    deadline = time.monotonic() + settings.number(HOLD_ENV)
    while time.monotonic() < deadline:
        time.sleep(0.5)
    os._exit(UNKILLED_CODE)
