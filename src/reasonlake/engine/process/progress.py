"""How far a long engine call got (the files of an ingest, the closes of a slide, the steps
of a rebuild or a repair), told to whoever asked and to nobody else.

The engine runs under a terminal, a scheduled job and a notebook alike, so it never draws
anything itself: a caller passes a ``progress(done, total, what)`` callable (the CLI draws a
bar on a terminal with it) and the engine calls it with ``done=0`` when the work starts and
once after each unit. ``total`` is None while it is not known yet: a slide finds each next
close from the state the previous one left, so its total is given with its last close.
"""
from __future__ import annotations

from typing import Callable

Progress = Callable[[int, "int | None", str], None]


class Steps:
    """Units done so far, each told to ``progress`` (nothing to tell when it is None)."""

    def __init__(self, progress: Progress | None = None, total: int | None = None):
        self.progress = progress
        self.total = total
        self.done = 0

    def start(self) -> Steps:
        if self.progress is not None:
            self.progress(0, self.total, "")
        return self

    def advance(self, what: str, n: int = 1, *, last: bool = False) -> None:
        """``n`` more units done, the latest named ``what``; ``last``: no unit follows."""
        self.done += n
        if last:
            self.total = self.done
        if self.progress is not None:
            self.progress(self.done, self.total, what)
