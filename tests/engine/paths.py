"""The two evaluation paths of the engine, for tests that must hold on both."""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def evaluation_path(path: str):
    """``spark``: every rule round on Spark (the driver path off); ``driver``: the default
    threshold, so small test steps run in the driver."""
    from reasonlake.engine.reason import budget

    saved = budget.LOCAL_ROWS
    if path == "spark":
        budget.LOCAL_ROWS = 0
    try:
        yield
    finally:
        budget.LOCAL_ROWS = saved
