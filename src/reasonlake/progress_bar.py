"""The CLI's progress bars: an ingest of many files, a slide of many closes, a rebuild or a
repair can take minutes, and a terminal should show how far they got.

Drawn with tqdm from the engine's ``progress(done, total, what)`` calls (``engine.process.progress``),
on stderr, and only when stderr is a terminal and ``--quiet`` was not given: pipes, logs and
scheduled jobs get exactly the output they got without bars, and stdout never changes. The
bar is cleared when the command ends, so the terminal keeps only the command's own output;
tqdm is imported only when a bar is drawn.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager


@contextmanager
def progress_bar(what: str, unit: str, *, quiet: bool):
    """A ``progress`` callable drawing a bar named ``what`` counting ``unit`` (" files"), or None."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    # imported when called: it loads tqdm
    from tqdm import tqdm

    drawn = None

    def progress(done: int, total: int | None, latest: str) -> None:
        nonlocal drawn
        if drawn is None:  # at the first call: a command with nothing to do draws nothing
            drawn = tqdm(desc=what, total=total, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)
        drawn.total = total
        if latest:
            drawn.set_postfix_str(latest, refresh=False)
        drawn.update(done - drawn.n)
        drawn.refresh()

    try:
        yield progress
    finally:
        if drawn is not None:
            drawn.close()
