"""How many facts a close may hold to be evaluated in the driver.

The choice between the driver (vectorized, ``driver_rules``) and Spark is the memory a
close's facts take against a budget: the facts of the materialization, every Δ and the
candidates of a round, with the hash tables of the joins, take about ``BYTES_PER_FACT``
bytes a fact (measured with ``bench/throughput.py``: peak resident memory over facts in
the window). A close that would not fit runs on Spark, whose executors spill.
"""
from __future__ import annotations

import os

from reasonlake import settings

# Peak driver memory per fact of the window during a close (rdfs-plus and owl2rl scenarios
# of bench/throughput.py, 100k to 1M items a slide, measured at 300-420 bytes).
BYTES_PER_FACT = 512
# Share of the machine's memory a close in the driver may take by default: the JVM (Spark
# and Delta) and the operating system keep the rest.
DEFAULT_SHARE = 0.25


def parse_bytes(text: str) -> int:
    """'4g', '512m', '2048k' or a number of bytes."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    value = text.strip().lower().removesuffix("b")
    try:
        if value and value[-1] in units:
            return int(float(value[:-1]) * units[value[-1]])
        return int(value)
    except ValueError:
        raise ValueError(f"REASONLAKE_DRIVER_BUDGET={text!r}: give bytes with an optional unit, e.g. 4g or 512m") from None


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def driver_budget() -> int:
    """Bytes a close in the driver may take: REASONLAKE_DRIVER_BUDGET, else a quarter of memory."""
    configured = settings.text("REASONLAKE_DRIVER_BUDGET")
    return parse_bytes(configured) if configured else int(physical_memory() * DEFAULT_SHARE)


def driver_rows() -> int:
    """Facts a close in the driver may hold. REASONLAKE_LOCAL_ROWS sets it outright
    (0: every close on Spark, as the Spark-path tests run)."""
    configured = settings.text("REASONLAKE_LOCAL_ROWS")
    if configured is not None:
        return int(configured)
    return driver_budget() // BYTES_PER_FACT


# Closes whose facts (materialization + candidates) stay under this many rows run in the
# driver (``driver_rules``; ``driver_matching`` serves the small searches of repair). 0 turns
# the driver off (every step on Spark); tests run both paths.
LOCAL_ROWS = driver_rows()

# The fact-by-fact searches (``driver_matching``) hold plain tuples (about 1 kB a fact with
# their indexes): past this many facts a search goes to Spark even when a whole close would
# fit in the driver.
SEARCH_ROWS = 250_000


# Facts a close on Spark may fetch into the driver to run its rounds there (``neighbourhood``):
# those its change reaches. REASONLAKE_NEIGHBOURHOOD_ROWS sets it (0: the rounds of a close
# too large for the driver run on Spark); None: as LOCAL_ROWS.
_configured = settings.text("REASONLAKE_NEIGHBOURHOOD_ROWS")
NEIGHBOURHOOD_ROWS: int | None = int(_configured) if _configured is not None else None


def neighbourhood_rows() -> int:
    """Facts a close on Spark may fetch into the driver for its rounds (0: none)."""
    return LOCAL_ROWS if NEIGHBOURHOOD_ROWS is None else NEIGHBOURHOOD_ROWS


def enabled(rows: int) -> bool:
    """Whether a step over ``rows`` facts runs in the driver: the one threshold of the engine."""
    return 0 < LOCAL_ROWS and rows <= LOCAL_ROWS


def search_rows() -> int:
    """Facts a fact-by-fact search in the driver may hold (0: the driver is off)."""
    return min(LOCAL_ROWS, SEARCH_ROWS)
