"""The two evaluation paths of the engine, for tests that must hold on both."""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager


@contextmanager
def evaluation_path(path: str):
    """``spark``: every rule round on Spark (the driver path off); ``driver``: the default
    threshold, so small test steps run in the driver.

    Yields a Counter of where each close's rounds ran ("driver" or "spark"), and on leaving
    checks the path asked for is the one that ran: a silent fall-back from one backend to
    the other would leave the suite's backend untested while it passes."""
    from reasonlake.engine import close
    from reasonlake.engine.reason import budget

    ran: Counter = Counter()
    saved_rows, saved_reasoned = budget.LOCAL_ROWS, close.Close._reasoned

    def reasoned(self, result):  # every close's rounds end here, on either backend
        ran["driver" if result.local is not None else "spark"] += 1
        return saved_reasoned(self, result)

    if path == "spark":
        budget.LOCAL_ROWS = 0
    close.Close._reasoned = reasoned
    try:
        yield ran
    finally:
        budget.LOCAL_ROWS = saved_rows
        close.Close._reasoned = saved_reasoned
    other = "driver" if path == "spark" else "spark"
    assert ran[path] > 0 and ran[other] == 0, f"the {path} path was asked for, the rounds ran: {dict(ran)}"
