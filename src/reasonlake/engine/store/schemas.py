"""Every table schema and shared column name of the engine, in one place.

Schemas are Spark DDL strings (what ``createDataFrame`` and ``CREATE TABLE`` take). A
table's columns change only through a migration (``migrations/``), so a change here goes
with one there.
"""
from __future__ import annotations

import polars as pl

# --- facts -------------------------------------------------------------------------------
KEY = ["s", "p", "o"]  # a fact's identity: subject, predicate, object ids
FACT_COLUMNS = ["s", "p", "o", "origin", "rule"]
EXPLICIT = "explicit"  # the rule of a stream item (or background fact) itself
FACT_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING"
# the same as a driver frame's schema (the rounds in the driver, and the store's reads of a
# view's table in this process)
FACT_FRAME_SCHEMA = {"s": pl.Int64, "p": pl.Int64, "o": pl.Int64, "origin": pl.Int64, "rule": pl.String}
# A fixpoint's change: a fact that entered or took a later origin (prev_origin: the one it left)
CHANGE_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING, prev_origin BIGINT"
# A window's admitted items, with how many events each stands for
ITEM_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING, n BIGINT"
ITEM_KEY_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, ts BIGINT"

# --- tables ------------------------------------------------------------------------------
# mat_<view>: partitioned by exp_pane, the pane at whose close a fact expires
MAT_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, origin BIGINT, exp_pane BIGINT, rule STRING"
# events: one row per ingested item (terms as written and as ids)
EVENT_SCHEMA = (
    "stream STRING, s STRING, p STRING, o STRING, s_id BIGINT, p_id BIGINT, o_id BIGINT, ts BIGINT, "
    "ts_day BIGINT, ingest_seq BIGINT, file STRING, line INT, event INT"
)
# quarantine: rows an ingest could not use, with the reason (and ``at``, the time of writing)
QUARANTINE_SCHEMA = "stream STRING, file STRING, line INT, raw STRING, reason STRING, ingest_seq BIGINT"
# ingests: one row per file or source ingested (and ``at``)
INGEST_SCHEMA = "seq BIGINT, stream STRING, file STRING, sha256 STRING, items BIGINT, quarantined BIGINT"
# violations_<view>: a negative rule's match (W3C rule id, its bindings, the facts it joined)
VIOLATION_SCHEMA = (
    "rule STRING, bindings MAP<STRING, BIGINT>, "
    "triples ARRAY<STRUCT<s: BIGINT, p: BIGINT, o: BIGINT, origin: BIGINT>>, origin BIGINT"
)
# removed_<view>: items a repair took out (tombstones), until their pane expires
REMOVED_SCHEMA = "s BIGINT, p BIGINT, o BIGINT, ts BIGINT, exp_pane BIGINT, close BIGINT"
_ITEM = "STRUCT<s: BIGINT, p: BIGINT, o: BIGINT, ts: BIGINT>"
# repairs_<view>: the repair log, one row per removed item with its conflict and the winners
REPAIRS_SCHEMA = (
    f"close BIGINT, seq BIGINT, version BIGINT, mode STRING, step BIGINT, rule STRING, "
    f"removed {_ITEM}, conflict ARRAY<{_ITEM}>, winners ARRAY<{_ITEM}>"
)
# view_state: view, then state.Published's fields in order
RECORD_SCHEMA = (
    "view STRING, seq BIGINT, close BIGINT, version BIGINT, mode STRING, events_seq BIGINT, "
    "admitted BIGINT, expired BIGINT, derived BIGINT, renewed BIGINT, rounds INT, late BIGINT, "
    "seconds DOUBLE, violations BIGINT, repairs BIGINT, violations_version BIGINT, "
    "expectation_failures BIGINT, withheld BOOLEAN"
)
# expectations_<view>: one row per expectation run after a close
EXPECTATION_SCHEMA = ("view STRING, close BIGINT, version BIGINT, run STRING, suite STRING, expectation STRING, "
                      "kwargs STRING, success BOOLEAN, observed STRING, unexpected STRING")
# One row per parsed item, per rejected row, and one per file (kind 'file': its sha256 and
# counts, or kind 'fatal': why the whole file cannot be read).
PARSED_SCHEMA = (
    "kind STRING, file STRING, sha256 STRING, s STRING, p STRING, o STRING, ts BIGINT, line INT, "
    "event INT, raw STRING, reason STRING"
)
