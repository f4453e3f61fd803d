"""The most one SPARQL query may hold at a step: rows and memory (decision 0070).

A query's steps multiply rows: a join of patterns that share no variable is every pair of
their rows, and three patterns over a view of 4,000 triples are 64 billion solutions. Polars
aborts the process when an allocation fails (no exception to catch), and Spark collects the
answer into one driver, so a step is stopped before it passes the bound, with one line
naming the bound and how to raise it: the command fails, the process that answers (the
command server, the runner, a notebook) goes on.

``REASONLAKE_QUERY_MAX_ROWS`` (default 10 million) bounds the rows of a join, a property
path's pairs and the answer; ``REASONLAKE_QUERY_MAX_MB`` (default 2048) their estimated
size in memory. ``reasonlake query --max-rows/--max-mb`` set them for one query.
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake import settings
from reasonlake.errors import SparqlError, UsageError

ROWS_SETTING = "REASONLAKE_QUERY_MAX_ROWS"
MB_SETTING = "REASONLAKE_QUERY_MAX_MB"
# a view the driver reads whole (``REASONLAKE_DRIVER_READ_MB``: 128 MB of Parquet, some 5M
# facts, 65-150 bytes a fact as text in Polars) is answered whole by ``SELECT *``
DEFAULT_ROWS = 10_000_000
DEFAULT_MB = 2048


class QueryBoundError(SparqlError):
    """A query that would hold more rows or memory than its bound at some step."""

    code = "RL196"


@dataclass(frozen=True)
class Bound:
    rows: int
    mb: float

    @property
    def bytes(self) -> int:
        return int(self.mb * 1024 * 1024)

    def rows_past(self, what: str, rows: int | str) -> QueryBoundError:
        """The error of ``what`` making ``rows`` (a count, or words such as "more than N")."""
        shown = f"{rows:,}" if isinstance(rows, int) else rows
        return QueryBoundError(
            f"the query stopped at {what}: {shown} rows, past its bound of {self.rows:,} rows "
            f"({ROWS_SETTING}, default {DEFAULT_ROWS:,}); narrow the query, or raise the bound: {ROWS_SETTING}=N, or "
            "`reasonlake query --max-rows N` for one query")

    def memory_past(self, what: str, size: int | str) -> QueryBoundError:
        """The error of ``what`` holding ``size`` bytes (or words such as "more than N MB")."""
        shown = f"about {mb_text(size / 2**20)} MB" if isinstance(size, int) else size
        return QueryBoundError(
            f"the query stopped at {what}: {shown}, past its bound of {mb_text(self.mb)} MB "
            f"({MB_SETTING}, default {DEFAULT_MB}); narrow the query, or raise the bound: {MB_SETTING}=N, "
            "or `reasonlake query --max-mb N` for one query")

    def check(self, what: str, rows: int, size: int | None = None) -> None:
        """Raise when ``rows`` (or ``size``, bytes) pass the bound."""
        if rows > self.rows:
            raise self.rows_past(what, rows)
        if size is not None and size > self.bytes:
            raise self.memory_past(what, size)


def mb_text(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def configured(rows: int | None = None, mb: float | None = None) -> Bound:
    """The bound of a query: ``rows`` and ``mb`` where given (a command's flags), else the
    settings, else the defaults."""
    return Bound(rows if rows is not None else int(_setting(ROWS_SETTING, DEFAULT_ROWS)),
                 mb if mb is not None else _setting(MB_SETTING, DEFAULT_MB))


def _setting(name: str, default: float) -> float:
    text = settings.text(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1
    if value <= 0:
        raise UsageError(f"{name}={text!r}: give a positive number (default {default:,}), or unset it")
    return value
