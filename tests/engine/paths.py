"""The two evaluation paths of the engine, for tests that must hold on both."""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager


@contextmanager
def evaluation_path(path: str):
    """``spark``: every rule round on Spark (the driver path off); ``driver``: the default
    threshold, so small test steps run in the driver; ``neighbourhood``: the close on
    Spark, its rounds in the driver over the facts of the table they fetch
    (``reason/neighbourhood``), as a window too large for the driver closes.

    Yields a Counter of where each close's rounds ran ("driver" or "spark"), and on leaving
    checks the path asked for is the one that ran: a silent fall-back from one backend to
    the other would leave the suite's backend untested while it passes."""
    from reasonlake.engine.jobs import close
    from reasonlake.engine.reason import budget

    ran: Counter = Counter()
    saved_rows, saved_reasoned = budget.LOCAL_ROWS, close.Close._reasoned
    saved_neighbourhood = budget.NEIGHBOURHOOD_ROWS

    def reasoned(self, result):  # every close's rounds end here, on either backend
        local = result.local
        ran["spark" if local is None else "neighbourhood" if local.partial else "driver"] += 1
        return saved_reasoned(self, result)

    if path in ("spark", "neighbourhood"):
        budget.LOCAL_ROWS = 0
    budget.NEIGHBOURHOOD_ROWS = 1_000_000 if path == "neighbourhood" else None
    close.Close._reasoned = reasoned
    try:
        yield ran
    finally:
        budget.LOCAL_ROWS = saved_rows
        budget.NEIGHBOURHOOD_ROWS = saved_neighbourhood
        close.Close._reasoned = saved_reasoned
    others = {"driver", "spark", "neighbourhood"} - {path}
    if path == "neighbourhood":  # a view's first close reads an empty table: it runs on Spark
        others.discard("spark")
    assert ran[path] > 0 and not any(ran[o] for o in others), \
        f"the {path} path was asked for, the rounds ran: {dict(ran)}"
