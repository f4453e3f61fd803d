"""Ingest: stream files into the append-only `events` table; bad rows into `quarantine`.

Nothing is lost: every row is either an event or a quarantined row with its reason. Each
write is idempotent (Delta `txnAppId`/`txnVersion` per file content and attempt), so a
crash between writes followed by a re-run gives the same tables.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pyspark.sql import functions as F

from reasonlake.engine.home import Home
from reasonlake.engine.state import latest_ingest_seq
from reasonlake.engine.terms import register_terms, term_id
from reasonlake.errors import DuplicateFileError, IngestError
from reasonlake.parse.formats import parse_file

DAY_MS = 86_400_000


@dataclass(frozen=True)
class IngestReport:
    file: str
    seq: int
    items: int
    quarantined: int
    reasons: tuple[tuple[int, str, str], ...]  # (line, raw, reason) of quarantined rows


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ingest_file(
    home: Home, stream: str, path: Path, *, ts: int | None = None, allow_duplicate: bool = False
) -> IngestReport:
    if not path.is_file():
        raise IngestError(f"{path}: no such file")
    sha = sha256_of(path)
    earlier = home.table("ingests").where((F.col("stream") == stream) & (F.col("sha256") == sha))
    previous = earlier.count()
    if previous and not allow_duplicate:
        first = earlier.orderBy("seq").first()
        raise DuplicateFileError(
            f"{path}: this content was already ingested into stream '{stream}' "
            f"(as {first.file}, ingest #{first.seq}); pass --allow-duplicate-file to ingest it again"
        )
    parsed = parse_file(path, ts=ts, file_key=sha[:12])
    seq = latest_ingest_seq(home) + 1
    txn = {"txnAppId": f"ingest-{stream}-{sha}", "txnVersion": previous + 1}
    if parsed.items:
        frame = pd.DataFrame(
            {
                "s": [i.s for i in parsed.items],
                "p": [i.p for i in parsed.items],
                "o": [i.o for i in parsed.items],
                "ts": [i.ts for i in parsed.items],
                "line": [i.line for i in parsed.items],
                "event": [i.event for i in parsed.items],
            }
        )
        parsed_rows = home.spark.createDataFrame(frame).localCheckpoint()
        # Terms are encoded once, here, so every view over the stream admits plain ids.
        register_terms(
            home.spark, home.path("terms"),
            parsed_rows.select(F.explode(F.array("s", "p", "o")).alias("term")),
        )
        events = parsed_rows.select(
            F.lit(stream).alias("stream"), "s", "p", "o",
            term_id(F.col("s")).alias("s_id"), term_id(F.col("p")).alias("p_id"),
            term_id(F.col("o")).alias("o_id"), F.col("ts").cast("long"),
            F.floor(F.col("ts") / DAY_MS).cast("long").alias("ts_day"),
            F.lit(seq).cast("long").alias("ingest_seq"), F.lit(str(path)).alias("file"),
            F.col("line").cast("int"), F.col("event").cast("int"),
        )
        events.write.format("delta").mode("append").options(**txn).save(home.path("events"))
    if parsed.rejected:
        rows = [(stream, str(path), r.line, r.raw, r.reason, seq) for r in parsed.rejected]
        bad = home.spark.createDataFrame(
            rows, "stream STRING, file STRING, line INT, raw STRING, reason STRING, ingest_seq BIGINT"
        ).withColumn("at", F.current_timestamp())
        bad.write.format("delta").mode("append").options(**txn).save(home.path("quarantine"))
    record = home.spark.createDataFrame(
        [(seq, stream, str(path), sha, len(parsed.items), len(parsed.rejected))],
        "seq BIGINT, stream STRING, file STRING, sha256 STRING, items BIGINT, quarantined BIGINT",
    ).withColumn("at", F.current_timestamp())
    record.write.format("delta").mode("append").options(**txn).save(home.path("ingests"))
    return IngestReport(
        file=str(path), seq=seq, items=len(parsed.items), quarantined=len(parsed.rejected),
        reasons=tuple((r.line, r.raw, r.reason) for r in parsed.rejected),
    )
