"""Ingest on the executors: files named by URI, and DataFrames, parsed where the data is.

Spark reads the files (``binaryFile``, any Hadoop file system) and each task parses its
files with the same parser as the driver's ingest, so the items, the quarantine rows (file,
line, reason) and the skolem IRIs are the same whichever process read a file. Term ids,
the dictionary's collision check (a join) and the writes stay in Spark: a call is a
handful of jobs whatever the number of files, and the rows never pass through the driver.

A call is all or nothing for what a user can name: every file is parsed and checked
(type, duplicate content, the items earlier ingests of its name put in: ``already_ingested``)
before anything is written, and each write carries one Delta transaction id for the call,
so a re-run after a crash between writes adds nothing twice.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.ingest import already_ingested, ingest_log
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.store import lease, table_cache
from reasonlake.engine.store.dictionary import (
    append_terms,
    few_unseen_terms,
    register_terms,
    term_id,
)
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import INGEST_SCHEMA, PARSED_SCHEMA
from reasonlake.errors import IngestError
from reasonlake.parse.formats import Rejected, parse_bytes, parse_rows

DAY_MS = 86_400_000
_FIELDS = [f.split(" ")[0] for f in PARSED_SCHEMA.split(", ")]
_BATCH_ROWS = 100_000
# Up to this many items a call, its terms are checked in the driver (few_unseen_terms).
FEW_ITEMS = 100_000


@dataclass(frozen=True)
class Source:
    file: str  # the URI as Spark qualifies it, or the name given to a DataFrame
    sha256: str  # of the file's bytes, or of the DataFrame's rows
    items: int
    rejected: int
    newest: int | None = None  # the latest item time (files only)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Parsed:
    """What one call parsed: every row (checkpointed) and its sources, in the order given."""
    rows: DataFrame
    sources: list[Source]


# The quarantined rows a report lists (all of them are in the quarantine table).
REPORTED_REJECTIONS = 1000


def _batches(rows: list[dict]):
    schema = _arrow_schema()
    for start in range(0, len(rows), _BATCH_ROWS):
        chunk = rows[start:start + _BATCH_ROWS]
        yield pa.RecordBatch.from_pydict({n: [r.get(n) for r in chunk] for n in _FIELDS}, schema=schema)


def _parsed_rows(file: str, sha: str, parsed, *, items: bool = True) -> list[dict]:
    rows = [{"kind": "item", "file": file, "s": i.s, "p": i.p, "o": i.o, "ts": i.ts, "line": i.line,
             "event": i.event} for i in parsed.items] if items else []
    rows += [{"kind": "rejected", "file": file, "line": r.line, "raw": r.raw, "reason": r.reason}
             for r in parsed.rejected]
    rows.append({"kind": "file", "file": file, "sha256": sha, "line": parsed.count,
                 "event": len(parsed.rejected), "ts": parsed.newest, "reason": "\n".join(parsed.notes) or None})
    return rows


def _item_batches(file: str, parsed):
    """A file's items as Arrow batches of PARSED_SCHEMA, straight from the parser's columns."""
    frame = parsed.frame()
    if not frame.height:
        return
    table = frame.select(
        pl.lit("item").alias("kind"), pl.lit(file).alias("file"), pl.lit(None, pl.String).alias("sha256"),
        "s", "p", "o", "ts", "line", "event",
        pl.lit(None, pl.String).alias("raw"), pl.lit(None, pl.String).alias("reason"),
    ).to_arrow().cast(_arrow_schema())
    yield from table.to_batches(max_chunksize=_BATCH_ROWS)


def _arrow_schema():
    return pa.schema([(n, pa.int64() if n == "ts" else pa.int32() if n in ("line", "event") else pa.string())
                      for n in _FIELDS])


def _parse_files(ts: int | None):
    """mapInArrow over (path, content): each file's items, rejections and summary."""
    def parse(batches):

        for batch in batches:
            for path, content in zip(batch.column("path").to_pylist(), batch.column("content").to_pylist()):
                sha = hashlib.sha256(content).hexdigest()
                try:
                    parsed = parse_bytes(path, content, ts=ts, file_key=sha[:12])
                except IngestError as exc:
                    yield from _batches([{"kind": "fatal", "file": path, "reason": str(exc)}])
                    continue
                yield from _item_batches(path, parsed)
                yield from _batches(_parsed_rows(path, sha, parsed, items=False))
    return parse


def _parse_messages():
    """mapInArrow over Kafka records (topic, partition, offset, value): each topic
    partition's records of the task read as one JSONL text, a row per message."""
    def parse(batches):


        runs: dict[tuple[str, int], list[tuple[int, bytes | None]]] = {}
        for batch in batches:
            columns = [batch.column(c).to_pylist() for c in ("topic", "partition", "offset", "value")]
            for topic, partition, offset, value in zip(*columns):
                runs.setdefault((topic, partition), []).append((offset, value))
        for (topic, partition), records in runs.items():
            records.sort(key=lambda r: r[0])
            first = records[0][0]
            # line n of the source is the record at offset first + n - 1 (a line number stays
            # small; offsets outgrow a line's 32 bits on a long-lived topic)
            name = f"kafka:{topic}/{partition}/{first}-{records[-1][0]}"
            lines, own = [], []
            for offset, value in records:
                line, rejected = _message_line(value or b"")
                lines.append(line)
                if rejected:
                    own.append((offset - first + 1, rejected))
            content = b"\n".join(lines)
            sha = hashlib.sha256(content).hexdigest()
            parsed = parse_bytes(name + ".jsonl", content, file_key=sha[:12])
            at = [offset - first + 1 for offset, _ in records]
            parsed = dataclasses.replace(
                parsed,
                rows=[dataclasses.replace(i, line=at[i.line - 1]) for i in parsed.rows],
                rejected=sorted([dataclasses.replace(r, line=at[r.line - 1]) for r in parsed.rejected]
                                + [_rejected(line, raw) for line, raw in own], key=lambda r: r.line),
                table=None if parsed.table is None else _at_lines(parsed.table, at))
            yield from _item_batches(name, parsed)
            yield from _batches(_parsed_rows(name, sha, parsed, items=False))
    return parse


def _message_line(value: bytes) -> tuple[bytes, str | None]:
    """A message as one JSONL line, or (a blank line, the message) when it cannot be one.

    A message may be JSON spread over lines: when it parses, its line breaks stood outside
    strings (JSON allows none inside), so spaces in their place give the same row."""
    if b"\n" not in value and b"\r" not in value:
        return value, None
    text = value.decode("utf-8", errors="replace")
    try:
        json.loads(text)
    except ValueError:
        return b"", text
    return value.replace(b"\r", b" ").replace(b"\n", b" "), None


def _rejected(line: int, raw: str):
    return Rejected(line, raw, "the message spans lines and is not valid JSON; a message is one JSON "
                    'object such as {"s": "<http://example.org/a>", "p": "<http://example.org/p>", '
                    '"o": "\\"text\\"", "ts": "2026-11-22T10:00:00Z"}')


def _at_lines(table, at: list[int]):
    lines = np.asarray(at)[table.get_column("line").to_numpy() - 1]
    return table.with_columns(pl.Series("line", lines).cast(table.schema["line"]))


def parse_messages(messages: DataFrame) -> Parsed:
    """Kafka records (topic, partition, offset, value: a JSONL row each) parsed on the
    executors; a source per topic partition and offset range of each task."""
    return parse_files(messages.select("topic", "partition", "offset", "value"), None,
                       parser=_parse_messages())


def parse_uris(home: Home, uris: list[str], ts: int | None) -> Parsed:
    """Every URI's file parsed on the executors (their types and times checked by the caller)."""
    files = home.spark.read.format("binaryFile").load(uris).select("path", "content")
    return parse_files(files, ts, order=uris)


def parse_files(files: DataFrame, ts: int | None, order: list[str] | None = None, *, parser=None) -> Parsed:
    """Parse a DataFrame of files (path, content) on the executors; sources in ``order``
    (else by path)."""
    with step("ingest: parse"):
        rows = files.mapInArrow(parser or _parse_files(ts), PARSED_SCHEMA).localCheckpoint()
        sources = rows.where(F.col("kind").isin("file", "fatal")).select(
            "kind", "file", "sha256", "reason", "line", "event", "ts").collect()
    fatal = [r for r in sources if r.kind == "fatal"]
    if fatal:
        raise IngestError(f"{fatal[0].reason} (nothing was ingested)")
    rank = {u: n for n, u in enumerate(order or [])}
    found = sorted(sources, key=lambda r: (rank.get(r.file, len(rank)), r.file))
    # a file's summary row holds its counts of items (line) and rejected rows (event), its
    # latest item time (ts) and its notes (reason)
    return Parsed(rows, [Source(r.file, r.sha256, r.line, r.event, r.ts,
                                tuple(r.reason.split("\n")) if r.reason else ()) for r in found])


def _parse_frame(file_key: str):
    def parse(batches):


        partition = TaskContext.get().partitionId()
        rows = [row for batch in batches for row in batch.to_pylist()]
        parsed = parse_rows(rows, file_key=f"{file_key}.{partition}")
        out = _parsed_rows("", "", parsed)[:-1]
        yield from _batches(out)
    return parse


def parse_frame(home: Home, frame: DataFrame, name: str) -> Parsed:
    """A DataFrame's rows (s, p, o, ts) checked as JSONL rows are: ts may be a timestamp, a
    number of epoch milliseconds or a string time."""
    missing = [c for c in ("s", "p", "o", "ts") if c not in frame.columns]
    if missing:
        raise IngestError(f"{name}: the DataFrame has no column {', '.join(missing)} "
                          f"(it has {', '.join(frame.columns)}); give it s, p, o (N-Triples terms) and ts")
    kind = dict(frame.dtypes)["ts"]
    if kind.startswith("timestamp") or kind == "date":
        ts = F.unix_millis(F.col("ts").cast("timestamp"))
    elif kind in ("bigint", "int", "smallint", "tinyint"):
        ts = F.col("ts").cast("long")
    elif kind == "string":
        ts = F.col("ts")
    else:
        raise IngestError(f"{name}: column ts is {kind}; give a timestamp, epoch milliseconds or a time string")
    source = frame.select(*(F.col(c).cast("string").alias(c) for c in ("s", "p", "o")), ts.alias("ts"))
    # A content key for the skolem IRIs and the transaction: the same rows give the same key.
    digest = source.select(F.sum(F.xxhash64("s", "p", "o", "ts").cast("decimal(38,0)")).alias("d"),
                           F.count("*").alias("n")).first()
    sha = hashlib.sha256(f"{name}\0{digest.d}\0{digest.n}".encode()).hexdigest()
    with step("ingest: parse"):
        rows = source.mapInArrow(_parse_frame(sha[:12]), PARSED_SCHEMA).withColumn(
            "file", F.lit(name)).localCheckpoint()
    counts = rows.agg(F.sum((F.col("kind") == "item").cast("long")).alias("items"),
                      F.sum((F.col("kind") == "rejected").cast("long")).alias("bad")).first()
    return Parsed(rows, [Source(name, sha, counts.items or 0, counts.bad or 0)])


def write(home: Home, stream: str, parsed: Parsed, *, allow_duplicate: bool, only_new: bool = False,
          by_file_name: bool = False, ts: int | None = None, txn: dict | None = None) -> list:
    """Append a call's events, quarantine and ingest records: an IngestReport per source.
    ``by_file_name``: the sources are files, compared with the earlier ingests of their
    names (``already_ingested``): one that holds items of theirs stops the call, unless
    ``only_new`` (those items are left out; ``ts``: the time the call gave .nt/.ttl files) or
    ``allow_duplicate``. ``txn`` replaces the call's Delta transaction id (the runner's: its
    query and micro-batch). Under the home's ingest lease: the ingest numbers and the new
    terms are read and appended by one ingest at a time."""
    with lease.ingesting(home):
        return _write(home, stream, parsed, ingest_log.ingests(home), allow_duplicate=allow_duplicate,
                      only_new=only_new, by_file_name=by_file_name, ts=ts, txn=txn)


def _write(home: Home, stream: str, parsed: Parsed, ingested, *, allow_duplicate: bool, only_new: bool,
           by_file_name: bool, ts: int | None, txn: dict | None) -> list:
    """``write`` once the lease is held; ``ingested``: the earlier ingests (seq, stream, file, sha256)."""
    counts, sources, unchanged = [], [], []
    outcome = "nothing of this call was ingested" if len(parsed.sources) > 1 else "it was not ingested again"
    for source in parsed.sources:
        before = ingest_log.earlier(ingested, stream, source.sha256)
        if before.height and not allow_duplicate:
            same_name = set(already_ingested.earlier(ingested, stream, source.file)) & set(before.get_column("seq"))
            if not (by_file_name and only_new and same_name):
                raise ingest_log.duplicate(source.file, stream, before, outcome=outcome)
            # its content went in before under its name: nothing new to add
            unchanged.append(ingest_log.IngestReport(file=source.file, seq=max(same_name), items=0, quarantined=0,
                                                     reasons=(), nothing_new=True))
            continue
        counts.append(before.height)
        sources.append(source)
    if not sources:
        return unchanged
    rows = parsed.rows
    if unchanged:
        rows = rows.where(~F.col("file").isin([r.file for r in unchanged]))
    notes: dict[str, tuple[str, ...]] = {}
    already: dict[str, int] = {}
    if by_file_name and not allow_duplicate:
        rows, sources, notes, already = _compared(home, stream, rows, sources, ingested, only_new=only_new, ts=ts,
                                                  outcome="nothing of this call was ingested")
    parsed = Parsed(rows, sources)
    first_seq = ingest_log.next_seq(ingested)
    seqs = {s.file: first_seq + n for n, s in enumerate(parsed.sources)}
    call = hashlib.sha256("\0".join(s.sha256 for s in parsed.sources).encode()).hexdigest()
    txn = txn or {"txnAppId": f"ingest-{stream}-{call}", "txnVersion": max(counts, default=0) + 1}
    seq_of = home.spark.createDataFrame(list(seqs.items()), "file STRING, ingest_seq BIGINT")
    rows = parsed.rows.join(F.broadcast(seq_of), "file")
    _write_events(home, stream, rows.where(F.col("kind") == "item"), sum(s.items for s in parsed.sources), txn)
    faults.reached("ingest: events")
    bad = rows.where(F.col("kind") == "rejected").select(
        F.lit(stream).alias("stream"), "file", "line", "raw", "reason", "ingest_seq").withColumn(
        "at", F.current_timestamp())
    if any(s.rejected for s in parsed.sources):
        bad.write.format("delta").mode("append").options(**txn).save(home.path("quarantine"))
        home.access.after_write(home.path("quarantine"))
    records = [(seqs[s.file], stream, s.file, s.sha256, s.items, s.rejected) for s in parsed.sources]
    before = table_cache.latest_commit(home.spark, home.path("ingests"))
    with step("ingest: record"):
        home.spark.createDataFrame(records, INGEST_SCHEMA).withColumn("at", F.current_timestamp()).write.format(
            "delta").mode("append").options(**txn).save(home.path("ingests"))
        home.access.after_write(home.path("ingests"))
    ingest_log.committed(home, ingested, before, records)
    return _reports(parsed, records, bad, notes, already) + unchanged


def _compared(home: Home, stream: str, rows: DataFrame, sources: list[Source], ingested, *, only_new: bool,
              ts: int | None, outcome: str):
    """The sources compared with the earlier ingests of their names (``already_ingested``):
    (rows, sources, notes and items left out per file). Stops when one holds items of theirs,
    unless ``only_new``: then those items are left out of the rows and the counts."""
    earlier = {s.file: already_ingested.earlier(ingested, stream, s.file) for s in sources}
    files = {s.file: (earlier[s.file], s.sha256[:12], s.items) for s in sources if earlier[s.file]}
    if not files:
        return rows, sources, {}, {}
    compared = (F.col("kind") == "item") & F.col("file").isin(list(files))
    with step("ingest: earlier items"):
        fresh, found = already_ingested.on_spark(home, stream, rows.where(compared), files)
    notes = {f: already_ingested.check(o, stream, only_new=only_new, ts=ts, outcome=outcome) for f, o in found.items()}
    if not only_new:  # nothing of them went in before: all of them go in, as their own
        return rows, sources, notes, {}
    sources = [dataclasses.replace(s, items=found[s.file].fresh) if s.file in found else s for s in sources]
    return (rows.where(~compared).unionByName(fresh), sources, notes,
            {f: o.already for f, o in found.items()})


def _write_events(home: Home, stream: str, items, count: int, txn: dict) -> None:
    """The items as events with their term ids, the new terms committed beside them."""
    spark = home.spark
    with step("ingest: terms"):
        terms = items.select(F.explode(F.array("s", "p", "o")).alias("term"))
        unseen = few_unseen_terms(spark, home.path("terms"), terms) if 0 < count <= FEW_ITEMS else None
        if count and unseen is None:
            register_terms(spark, home.path("terms"), terms)
    events = items.select(
        F.lit(stream).alias("stream"), "s", "p", "o", term_id(F.col("s")).alias("s_id"),
        term_id(F.col("p")).alias("p_id"), term_id(F.col("o")).alias("o_id"), "ts",
        F.floor(F.col("ts") / DAY_MS).cast("long").alias("ts_day"), "ingest_seq", "file", "line", "event")
    with step("ingest: events"), ThreadPoolExecutor(1) as beside:
        # the batch's new terms (checked already: nothing can fail but the write) are
        # committed beside its events; a crash between the two leaves events no ingest
        # record makes visible, as between any two of these commits
        appended = beside.submit(append_terms, spark, home.path("terms"), unseen) if unseen is not None else None
        if count:
            events.write.format("delta").mode("append").options(**txn).save(home.path("events"))
            home.access.after_write(home.path("events"))
        if appended is not None:
            appended.result()


def _reports(parsed: Parsed, records: list[tuple], bad, compared: dict[str, tuple[str, ...]],
             already: dict[str, int]) -> list:
    """A report per source, with up to REPORTED_REJECTIONS of the rows it quarantined
    (``compared``, ``already``: the notes and items left out of files compared with the
    earlier ingests of their names)."""
    shown: dict[str, list] = {}
    if any(r[5] for r in records):
        for r in bad.orderBy("ingest_seq", "line").limit(REPORTED_REJECTIONS).collect():
            shown.setdefault(r.file, []).append((r.line, r.raw, r.reason))
    notes = {s.file: s.notes + compared.get(s.file, ()) for s in parsed.sources}
    return [ingest_log.IngestReport(file=r[2], seq=r[0], items=r[4], quarantined=r[5], reasons=tuple(shown.get(r[2], ())),
                                    notes=notes.get(r[2], ()), already=already.get(r[2], 0)) for r in records]