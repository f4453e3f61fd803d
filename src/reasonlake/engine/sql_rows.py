"""A `reasonlake sql` query run and collected for printing: its columns and rows, with
timestamps as ISO strings in UTC, and a mistake in the query as one clear error."""
from __future__ import annotations

from typing import Callable

from pyspark.errors import AnalysisException, ParseException
from pyspark.logger import PySparkLogger
from pyspark.sql import functions as F
from pyspark.sql.types import TimestampType

from reasonlake.errors import SqlError


def collect(run: Callable, tables: Callable[[], list[str]]) -> tuple[list[str], list]:
    """``run()``'s frame collected: (column names, rows). ``tables()``: the names the query
    could use, listed when it names another."""
    # pyspark logs every failed query with its Java stack trace (kilobytes of JSON) before
    # raising; a mistake in the user's SQL is reported here, in one line
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    try:
        frame = utc_strings(run())
        rows = frame.collect()
    except (AnalysisException, ParseException) as exc:
        first = str(exc).strip().splitlines()[0]
        if "TABLE_OR_VIEW_NOT_FOUND" in first:
            first += f"; the tables are: {', '.join(tables())}"
        raise SqlError(f"SQL: {first}") from None
    return frame.columns, rows


def utc_strings(frame):
    """Timestamps as ISO strings in UTC (the session zone), whatever the local clock says."""
    return frame.select(*(
        F.date_format(F.col(f.name), "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").alias(f.name)
        if isinstance(f.dataType, TimestampType) else F.col(f.name)
        for f in frame.schema.fields
    ))
