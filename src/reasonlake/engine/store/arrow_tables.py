"""What a Delta table asks of a writer that is not Spark, for the commits written from the
driver (``arrow_commit`` through Delta's JVM classes, ``rs_commit`` through delta-rs): the
column types written, the settings and column features only a Spark write honours (a table
with them is ``Unusable`` here, and Spark writes it), the rows cast and their NOT NULL held,
and the partitions a replacement may touch.
"""
from __future__ import annotations

import polars as pl

# Delta's type names → the Polars types written for them
TYPES = {
    "long": pl.Int64, "integer": pl.Int32, "short": pl.Int16, "byte": pl.Int8,
    "double": pl.Float64, "float": pl.Float32, "boolean": pl.Boolean, "string": pl.Utf8,
    "date": pl.Date, "timestamp": pl.Datetime("us", "UTC"),
}
_REFUSED_SETTINGS = ("delta.columnMapping.mode", "delta.constraints.", "delta.enableRowTracking",
                     "delta.enableChangeDataFeed", "delta.enableIcebergCompatV", "delta.universalFormat",
                     "delta.enableTypeWidening")
_REFUSED_FIELD_METADATA = ("delta.generationExpression", "delta.identity", "delta.columnMapping",
                           "delta.invariants")


class Unusable(Exception):
    """This table or session takes its writes through Spark."""


def checked_fields(path: str, settings, fields: list[dict]) -> list[dict]:
    """The table's fields, when neither its settings nor its columns ask more of a writer
    than writing the rows (else Unusable)."""
    if any(key.startswith(_REFUSED_SETTINGS) for key in settings if key):
        raise Unusable(f"{path} has settings a Spark write enforces")
    for field in fields:
        if not isinstance(field["type"], str) or field["type"] not in TYPES:
            raise Unusable(f"{path}: column {field['name']} of type {field['type']}")
        if any(key.startswith(_REFUSED_FIELD_METADATA) for key in field.get("metadata", {})):
            raise Unusable(f"{path}: column {field['name']} is generated, an identity or mapped")
    return fields


def typed(table, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the table's columns, in its order and types; NOT NULL held."""
    missing = [f["name"] for f in table.fields if f["name"] not in frame.columns]
    if missing:
        raise ValueError(f"{table.folder}: the rows to write lack column(s) {missing}")
    out = frame.select([pl.col(f["name"]).cast(TYPES[f["type"]]) for f in table.fields])
    for field in table.fields:
        if not field.get("nullable", True) and out.get_column(field["name"]).null_count():
            raise ValueError(f"{table.folder}: NULL in NOT NULL column {field['name']}; nothing was written")
    return out


def outside_partitions(table, values, path: str, column: str, replaced, predicate: str) -> None:
    """Raises unless the table is partitioned by ``column`` alone (Unusable) and each of
    the rows' partition ``values`` is a replaced one (ValueError)."""
    if table.partitions != [column]:
        raise Unusable(f"{path} is not partitioned by {column} alone")
    for value in values:
        if not replaced(int(value)):
            raise ValueError(f"{path}: rows of partition {column}={value} outside '{predicate}'")
