"""Rows the driver holds, appended to a home's table: committed by the home's access mode
where it commits the driver's rows itself (``access``: ``arrow_commit``, ``rs_commit``),
else written through Spark, with the same transaction id either way.
"""
from __future__ import annotations

from datetime import datetime, timezone

import polars as pl

from reasonlake.engine.store import access


def append_frame(spark, path: str, frame: pl.DataFrame, schema: str, *,
                 txn: tuple[str, int] | None = None) -> None:
    """``frame``'s rows appended in one commit: by the access mode, or where it cannot take
    the table, through Spark (typed by ``schema``, with Delta's ``txnAppId``/``txnVersion``
    for ``txn``: a retried call writes nothing)."""
    access.of(spark, path).append(path, frame, schema=schema, txn=txn)


def append_rows(spark, path: str, rows: list[tuple], schema: str, *, txn: tuple[str, int] | None = None) -> None:
    """Records (tuples in ``schema``'s order) appended with the time of writing as ``at``."""
    names = [part.split()[0] for part in schema.split(", ")]
    frame = pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None).with_columns(
        pl.lit(datetime.now(timezone.utc)).alias("at"))
    append_frame(spark, path, frame, f"{schema}, at TIMESTAMP", txn=txn)
