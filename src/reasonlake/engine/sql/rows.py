"""A `reasonlake sql` query run and collected for printing: its columns and rows, with
timestamps as ISO strings in UTC, and a mistake in the query as one clear error."""
from __future__ import annotations

from typing import Callable

from pyspark.errors import AnalysisException, ParseException, PySparkException
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
    except PySparkException as exc:
        if not _the_querys_mistake(exc):
            raise
        first = str(exc).strip().splitlines()[0]
        if "TABLE_OR_VIEW_NOT_FOUND" in first:
            first += f"; the tables are: {', '.join(tables())}"
        raise SqlError(f"SQL: {first}") from None
    return frame.columns, rows


# SQLSTATE classes of a query's own mistakes: 22 its data (a division by zero, a cast that
# fails), 42 its text (a name not found, a syntax error); the others are Spark's to report
_QUERY_STATES = ("22", "42")


def _the_querys_mistake(exc: Exception) -> bool:
    if isinstance(exc, (AnalysisException, ParseException)):
        return True
    try:
        state = exc.getSqlState() or ""
    except Exception:  # an error without a state: not known to be the query's
        return False
    return state.startswith(_QUERY_STATES)


def utc_strings(frame):
    """Timestamps as ISO strings in UTC (the session zone), whatever the local clock says."""
    timestamps = [isinstance(f.dataType, TimestampType) for f in frame.schema.fields]
    if not any(timestamps):  # nothing to change: the frame as it is, whatever its columns' names
        return frame
    return frame.select(*(
        F.date_format(_column(f.name), "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").alias(f.name) if stamp else _column(f.name)
        for f, stamp in zip(frame.schema.fields, timestamps)
    ))


def _column(name: str):
    """The column named ``name`` as written: `SELECT 1.5` names its column `1.5`, which
    F.col would read as a field 5 of a column 1."""
    return F.col("`" + name.replace("`", "``") + "`")
