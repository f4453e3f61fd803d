"""Python's cycle collector held off while a close runs in the driver.

A driver-path close builds look-ups over the whole window (hundreds of thousands of lists
and sets) and frees them when it ends. With the collector on, those allocations start a
full collection, over everything the process holds, in about every other close: 0.45-0.6 s
on the Brick bench's 1% slide, more than the rules themselves (decision 0010). Held off for
the close, the look-ups are freed by reference counting when it ends and leave the
collector's counts where they were; cycles made meanwhile are collected afterwards as
usual. The caller's own setting (a process that turned the collector off) is kept.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def held_off():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
