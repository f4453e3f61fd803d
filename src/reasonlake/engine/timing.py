"""Per-step wall times of a close, printed to stderr when ``REASONLAKE_PROFILE`` is set.

``history`` records each close's total seconds; this says where they went (expire, admit,
repair, rounds, violations, publish), for benchmarks and for an on-call engineer asking
why a close got slow."""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager


@contextmanager
def step(name: str):
    if not os.environ.get("REASONLAKE_PROFILE"):
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        print(f"reasonlake profile: {name} {time.perf_counter() - started:.2f}s", file=sys.stderr, flush=True)
