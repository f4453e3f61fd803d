"""Per-step wall times of a close, printed to stderr when ``REASONLAKE_PROFILE`` is set.

``history`` records each close's total seconds; this says where they went (expire, admit,
repair, rounds, violations, publish), for benchmarks and for an on-call engineer asking
why a close got slow."""
from __future__ import annotations

import sys
import time
from collections import defaultdict
from contextlib import contextmanager

from reasonlake import settings

_RECORDERS: list[dict] = []


@contextmanager
def recorded():
    """Seconds per step name, summed over every step run inside the block (benchmarks)."""
    seconds: dict = defaultdict(float)
    _RECORDERS.append(seconds)
    try:
        yield seconds
    finally:
        _RECORDERS.remove(seconds)


@contextmanager
def step(name: str):
    printed = settings.is_set("REASONLAKE_PROFILE")
    if not printed and not _RECORDERS:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        took = time.perf_counter() - started
        for seconds in _RECORDERS:
            seconds[name] += took
        if printed:
            print(f"reasonlake profile: {name} {took:.2f}s", file=sys.stderr, flush=True)
