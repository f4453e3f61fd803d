"""What the earlier ingests of a file's name put in a stream: the items a fixed file adds,
and the overlap that stops an ingest which would add items of a file twice.

A file whose quarantined rows were fixed holds the items that went in the first time and
the fixed rows' items. Its items are compared with the events of the earlier ingests of a
file of the same name into the same stream (a path and a ``file:`` URI of it are one name),
by content: (s, p, o, ts), counted with their repeats, so a row written twice in the file is
two items both times. Lines are no identity: a Turtle statement spans lines and its items
carry none, and a fix may add or remove lines. Content is one in every format.

Blank nodes are skolem IRIs keyed by a hash of the file's content (``parse.collected``), so a
fixed file's would all differ from the first ingest's: its own key is replaced by the key of
the latest earlier ingest that holds blank nodes, which names them as that ingest did (by
row or graph and label; Turtle and TriG by order of appearance). An earlier blank-node item
the fixed file no longer holds means the names moved (a fixed statement with blank nodes
renumbers those after it): the ingest stops rather than add those items again under new names.
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass

import polars as pl

from reasonlake.plan.durations import format_time
from reasonlake.engine.store import arrow_bridge
from reasonlake.engine.store import inputs
from reasonlake.engine.store.home import Home
from reasonlake.errors import DuplicateFileError, IngestError
from reasonlake.parse.collected import SKOLEM_PREFIX
from reasonlake.parse.formats import suffix_of

ITEM_KEY = ["s", "p", "o", "ts"]
_SKOLEM = f"<{SKOLEM_PREFIX}"
# the key of a skolem IRI: what parse.formats takes as a file key, up to the next ':'
KEY_PATTERN = "^" + re.escape(_SKOLEM) + r"([A-Za-z0-9._\-]+):"
_OCCURRENCE = "_occurrence"


def skolem_prefix(key: str) -> str:
    return f"{_SKOLEM}{key}:"


def identity(name: str) -> str:
    """A file's name as ingests are compared by: a plain path made absolute (from the current
    folder), a ``file:`` URI as its path, any other URI as Spark qualifies it."""
    if inputs.is_uri(name):
        parts = urllib.parse.urlsplit(name)
        if parts.scheme.lower() != "file":
            return name
        return os.path.normpath(urllib.parse.unquote(parts.path))
    return os.path.normpath(os.path.abspath(name))


def earlier(ingested: pl.DataFrame, stream: str, name: str) -> tuple[int, ...]:
    """The numbers of the ingests into ``stream`` of a file of this name, oldest first
    (``ingested``: the ingests table's seq, stream, file)."""
    mine = identity(name)
    last = mine.rstrip("/").rsplit("/", 1)[-1]
    candidates = ingested.filter((pl.col("stream") == stream) & pl.col("file").str.ends_with(last))
    return tuple(sorted(seq for seq, file in candidates.select("seq", "file").iter_rows() if identity(file) == mine))


@dataclass(frozen=True)
class Overlap:
    """A file's items against the ones its name's earlier ingests put in the stream."""

    file: str
    earlier: tuple[int, ...]  # those ingests' numbers
    total: int  # the items the file holds
    fresh: int  # of them, the ones not ingested from it before
    gone: int  # distinct items ingested from it before that it no longer holds
    gone_blank: int  # of those, items with a blank node of the file
    times: tuple[int, int] | None  # the earliest and latest time of the items ingested from it

    @property
    def already(self) -> int:
        return self.total - self.fresh


def numbers(seqs: tuple[int, ...]) -> str:
    return "ingest " + ", ".join(f"#{s}" for s in seqs)


def check(found: Overlap, stream: str, *, only_new: bool, ts: int | None, outcome: str) -> tuple[str, ...]:
    """Stop an ingest that would add items of a file twice, or add the wrong ones; the notes
    of one that goes on. ``outcome``: what the stop leaves, for the message."""
    seqs, name = numbers(found.earlier), found.file
    if not only_new:
        if found.already:
            raise DuplicateFileError(
                f"{name}: {found.already} of its {found.total} items were already ingested into stream "
                f"'{stream}' from a file of this name ({seqs}); {outcome}; pass --only-new-items to add only "
                f"the {found.fresh} not yet ingested from it (a file whose quarantined rows were fixed), or "
                f"--allow-duplicate-file to ingest all {found.total} again")
        return ()
    if (ts is not None and found.times is not None and suffix_of(name) in (".nt", ".ttl")
            and not found.times[0] <= ts <= found.times[1]):
        raise IngestError(
            f"{name}: its items went into stream '{stream}' at {format_time(found.times[0])} ({seqs}) and "
            f"--ts gives {format_time(ts)}, which makes every item a new event; {outcome}; give --ts "
            f"{format_time(found.times[0])} to add only the items not yet ingested from it, or leave out "
            "--only-new-items to ingest all of it at the new time")
    if found.gone_blank:
        raise IngestError(
            f"{name}: {found.gone_blank} item(s) with blank nodes that went in from it before ({seqs}) are "
            "not in it as they were: a blank node is named by its place in the file (its row or graph "
            "and label; in Turtle and TriG its order of appearance), and the change moved them (a fixed "
            f"statement with blank nodes renumbers the ones after it); {outcome}; ingest the fixed rows "
            "alone as a file of their own, or give --allow-duplicate-file instead of --only-new-items to "
            "ingest all of it again")
    if found.gone:
        return (f"{found.gone} item(s) ingested from it before ({seqs}) are no longer in it; they stay "
                "ingested (events are never removed)",)
    return ()


def key_of(counts: list[tuple[int, str, int]]) -> str | None:
    """The skolem key the earlier ingests named the file's blank nodes with: the most used
    one of the latest ingest that holds any. ``counts``: (ingest number, key, items)."""
    if not counts:
        return None
    return max(counts, key=lambda c: (c[0], c[2], c[1]))[1]


# ---- files parsed in the driver ------------------------------------------------------------


def in_driver(home: Home, stream: str, name: str, seqs: tuple[int, ...], items: pl.DataFrame,
              own_key: str) -> tuple[pl.DataFrame, Overlap]:
    """``items`` (``jsonl_columns.ITEM_SCHEMA``, in line order) against the events of the
    ingests ``seqs``: the items not ingested from the file yet, their blank nodes named as
    the earlier ingests named them, in line order; and the counts."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql import functions as F

    events = home.table("events").where((F.col("stream") == stream) & F.col("ingest_seq").isin(list(seqs)))
    old = arrow_bridge.from_spark(events, ["s", "p", "o", "ts", "ingest_seq", "line"]).sort(
        "ingest_seq", "line", maintain_order=True)
    keys = pl.concat([old.select("ingest_seq", pl.col(c).str.extract(KEY_PATTERN, 1).alias("key")) for c in ("s", "o")])
    counted = keys.drop_nulls("key").group_by("ingest_seq", "key").len()
    key = key_of([(seq, k, n) for seq, k, n in counted.iter_rows()])
    new = _renamed(items, own_key, key)
    old_n, new_n = _numbered(old), _numbered(new)
    on = [*ITEM_KEY, _OCCURRENCE]
    fresh = new_n.join(old_n.select(on), on=on, how="anti", maintain_order="left").drop(_OCCURRENCE)
    gone = old.select(ITEM_KEY).unique().join(new.select(ITEM_KEY).unique(), on=ITEM_KEY, how="anti")
    blank = 0
    if key is not None:
        prefix = skolem_prefix(key)
        blank = gone.filter(pl.col("s").str.starts_with(prefix) | pl.col("o").str.starts_with(prefix)).height
    times = (old.get_column("ts").min(), old.get_column("ts").max()) if old.height else None
    return fresh, Overlap(name, seqs, items.height, fresh.height, gone.height, blank, times)


def _numbered(frame: pl.DataFrame) -> pl.DataFrame:
    """Each item with its occurrence among the items of the same content (0, 1, ...)."""
    return frame.with_columns(pl.int_range(pl.len()).over(ITEM_KEY).alias(_OCCURRENCE))


def _renamed(items: pl.DataFrame, own_key: str, key: str | None) -> pl.DataFrame:
    if key is None or key == own_key:
        return items
    own, earlier_key = skolem_prefix(own_key), skolem_prefix(key)
    return items.with_columns(
        pl.when(pl.col(c).str.starts_with(own)).then(pl.lit(earlier_key) + pl.col(c).str.slice(len(own)))
        .otherwise(pl.col(c)).alias(c) for c in ("s", "o"))


# ---- files parsed on the executors -----------------------------------------------------------


def on_spark(home: Home, stream: str, items, files: dict[str, tuple[tuple[int, ...], str, int]]):
    """``items`` (rows of ``PARSED_SCHEMA``, kind ``item``, of the files named in ``files``:
    file -> (earlier ingest numbers, own skolem key, its item count)) against the events of
    each file's earlier ingests: (the items not ingested from their file yet, checkpointed,
    blank nodes named as the earlier ingests named them; an Overlap per file)."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    spark = home.spark
    owner = spark.createDataFrame([(seq, f) for f, (seqs, _, _) in files.items() for seq in seqs],
                                  "ingest_seq BIGINT, file STRING")
    every = sorted({seq for seqs, _, _ in files.values() for seq in seqs})
    old = home.table("events").where((F.col("stream") == stream) & F.col("ingest_seq").isin(every)).select(
        "s", "p", "o", "ts", "ingest_seq", "line").join(F.broadcast(owner), "ingest_seq").localCheckpoint()
    s_key, o_key = (F.regexp_extract(c, KEY_PATTERN, 1) for c in ("s", "o"))
    summary = old.groupBy("file", "ingest_seq", F.when(s_key != "", s_key).when(o_key != "", o_key).alias("key")).agg(
        F.count("*").alias("n"), F.min("ts").alias("first"), F.max("ts").alias("last")).collect()
    keys, times = {}, {}
    for f in files:
        rows = [r for r in summary if r.file == f]
        keys[f] = key_of([(r.ingest_seq, r.key, r.n) for r in rows if r.key])
        if rows:
            times[f] = (min(r.first for r in rows), max(r.last for r in rows))
    prefixes = [(f, skolem_prefix(own), skolem_prefix(keys[f]) if keys[f] else None)
                for f, (_, own, _) in files.items()]
    mapping = F.broadcast(spark.createDataFrame(prefixes, "file STRING, own_prefix STRING, key_prefix STRING"))

    def renamed(c: str):
        moved = F.col("key_prefix").isNotNull() & F.col(c).startswith(F.col("own_prefix"))
        return F.when(moved, F.concat(F.col("key_prefix"), F.expr(f"substring({c}, length(own_prefix) + 1)"))) \
            .otherwise(F.col(c)).alias(c)

    columns = items.columns
    new = items.join(mapping, "file").select(*(renamed(c) if c in ("s", "o") else c for c in columns), "key_prefix")
    on = ["file", *ITEM_KEY, _OCCURRENCE]
    new = new.withColumn(_OCCURRENCE, F.row_number().over(Window.partitionBy("file", *ITEM_KEY).orderBy("line", "event")))
    old = old.withColumn(_OCCURRENCE, F.row_number().over(Window.partitionBy("file", *ITEM_KEY).orderBy("ingest_seq", "line")))
    fresh = new.join(old.select(on), on, "left_anti").select(columns).localCheckpoint()
    fresh_counts = {r.file: r["count"] for r in fresh.groupBy("file").count().collect()}
    gone = old.select("file", *ITEM_KEY).distinct().join(new.select("file", *ITEM_KEY), ["file", *ITEM_KEY],
                                                         "left_anti").join(mapping, "file")
    blank = F.col("key_prefix").isNotNull() & (F.col("s").startswith(F.col("key_prefix"))
                                               | F.col("o").startswith(F.col("key_prefix")))
    gone_counts = {r.file: (r.n, r.blank or 0) for r in gone.groupBy("file").agg(
        F.count("*").alias("n"), F.sum(blank.cast("long")).alias("blank")).collect()}
    found = {f: Overlap(f, seqs, total, fresh_counts.get(f, 0), *gone_counts.get(f, (0, 0)), times.get(f))
             for f, (seqs, _, total) in files.items()}
    return fresh, found


def changed_meanwhile(name: str, stream: str, seqs: tuple[int, ...], *, outcome: str) -> DuplicateFileError:
    """The error for a file of this name that another ingest committed while this one
    compared the file with the earlier ones (``seqs``: the earlier ingests now)."""
    return DuplicateFileError(
        f"{name}: another ingest of a file of this name into stream '{stream}' committed while this one "
        f"read it ({numbers(seqs)}); {outcome}; run it again (with --only-new-items only the items not "
        "yet ingested from it are added)")
