"""Ingest: stream files into the append-only `events` table; bad rows into `quarantine`.

Nothing is lost: every row is either an event or a quarantined row with its reason. Each
write is idempotent (Delta `txnAppId`/`txnVersion` per file content and attempt), so a
crash between writes followed by a re-run gives the same tables.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from pyspark.sql import functions as F

from reasonlake.engine import admit, table_cache
from reasonlake.engine.driver_step import to_spark
from reasonlake.engine.home import Home
from reasonlake.engine.timing import step
from reasonlake.engine.terms import driver_term_ids, register_driver_terms
from reasonlake.errors import DuplicateFileError, IngestError
from reasonlake.parse.formats import parse_file

DAY_MS = 86_400_000
EVENT_SCHEMA = (
    "stream STRING, s STRING, p STRING, o STRING, s_id BIGINT, p_id BIGINT, o_id BIGINT, ts BIGINT, "
    "ts_day BIGINT, ingest_seq BIGINT, file STRING, line INT, event INT"
)


@dataclass(frozen=True)
class IngestReport:
    file: str
    seq: int
    items: int
    quarantined: int
    reasons: tuple[tuple[int, str, str], ...]  # (line, raw, reason) of quarantined rows
    notes: tuple[str, ...] = ()  # what the file held but a row does not keep (extra fields)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _ingests(home: Home) -> pl.DataFrame:
    """The ingests so far (seq, stream, file, sha256), kept per commit of their table."""
    def read() -> pl.DataFrame:
        return pl.from_arrow(home.table("ingests").select("seq", "stream", "file", "sha256").toArrow())

    return table_cache.read(home.spark, home.path("ingests"), ("ingests",), read)


def ingest_file(
    home: Home, stream: str, path: Path, *, ts: int | None = None, allow_duplicate: bool = False,
    sha: str | None = None,
) -> IngestReport:
    if not path.is_file():
        raise IngestError(f"{path}: no such file")
    sha = sha or sha256_of(path)
    ingests = _ingests(home)
    earlier = ingests.filter((pl.col("stream") == stream) & (pl.col("sha256") == sha))
    previous = earlier.height
    if previous and not allow_duplicate:
        first = earlier.sort("seq").row(0, named=True)
        raise DuplicateFileError(
            f"{path}: this content was already ingested into stream '{stream}' "
            f"(as {first['file']}, ingest #{first['seq']}); pass --allow-duplicate-file to ingest it again"
        )
    with step("ingest: parse"):
        parsed = parse_file(path, ts=ts, file_key=sha[:12])
    seq = (ingests.get_column("seq").max() or 0) + 1
    txn = {"txnAppId": f"ingest-{stream}-{sha}", "txnVersion": previous + 1}
    if parsed.count:
        # Terms are encoded once, here, so every view over the stream admits plain ids;
        # the ids are computed in the driver (the same hash as Spark's), and the events go
        # to Delta from Arrow in one job.
        items = parsed.frame()
        ids = driver_term_ids(pl.concat([items.get_column(x) for x in ("s", "p", "o")]))
        with step("ingest: terms"):
            register_driver_terms(home.spark, home.path("terms"), ids)
        for x in ("s", "p", "o"):
            items = items.join(ids.rename({"term": x, "id": f"{x}_id"}), on=x, how="left")
        events = items.select(
            pl.lit(stream).alias("stream"), "s", "p", "o", "s_id", "p_id", "o_id", "ts",
            (pl.col("ts") // DAY_MS).alias("ts_day"), pl.lit(seq, pl.Int64).alias("ingest_seq"),
            pl.lit(str(path)).alias("file"), "line", "event",
        )
        with step("ingest: events"):
            before = table_cache.latest_commit(home.spark, home.path("events"))
            to_spark(home.spark, events, EVENT_SCHEMA).write.format("delta").mode("append").options(**txn).save(
                home.path("events"))
            admit.after_ingest(home, stream, seq, before, events)
    if parsed.rejected:
        rows = [(stream, str(path), r.line, r.raw, r.reason, seq) for r in parsed.rejected]
        bad = home.spark.createDataFrame(
            rows, "stream STRING, file STRING, line INT, raw STRING, reason STRING, ingest_seq BIGINT"
        ).withColumn("at", F.current_timestamp())
        bad.write.format("delta").mode("append").options(**txn).save(home.path("quarantine"))
    path_ingests = home.path("ingests")
    before = table_cache.latest_commit(home.spark, path_ingests)
    record = home.spark.createDataFrame(
        [(seq, stream, str(path), sha, parsed.count, len(parsed.rejected))],
        "seq BIGINT, stream STRING, file STRING, sha256 STRING, items BIGINT, quarantined BIGINT",
    ).withColumn("at", F.current_timestamp())
    record.write.format("delta").mode("append").options(**txn).save(path_ingests)
    row = pl.DataFrame({"seq": [seq], "stream": [stream], "file": [str(path)], "sha256": [sha]},
                       schema=ingests.schema)
    table_cache.after_own_commit(home.spark, path_ingests, ("ingests",), before,
                                 lambda kept: pl.concat([kept, row]))
    table_cache.after_own_commit(home.spark, path_ingests, ("latest seq",), before, lambda kept: max(kept, seq))
    return IngestReport(
        file=str(path), seq=seq, items=parsed.count, quarantined=len(parsed.rejected),
        reasons=tuple((r.line, r.raw, r.reason) for r in parsed.rejected), notes=parsed.notes,
    )


def ingest_paths(home: Home, stream: str, args: list[str], *, ts: int | None = None,
                 allow_duplicate: bool = False) -> list[IngestReport]:
    """Files, folders, globs and URIs (``inputs``): plain paths are read and parsed here, file
    by file; URIs are read and parsed by the executors, all in one call. Every argument is
    resolved, every file's type checked and every plain file's content checked against the
    ingests before anything is written; a failure after that (a crash, a disk) names the
    files already committed, which a re-run finds ingested."""
    from reasonlake.engine import inputs, spark_ingest
    from reasonlake.parse.formats import check_readable

    check_stream_name(stream)
    files = inputs.resolve(home.spark, list(args))
    for f in files:
        check_readable(f.name, ts)
    plain = [Path(f.name) for f in files if not f.uri]
    digests = _check_new(home, stream, plain) if not allow_duplicate else {}
    reports: list[IngestReport] = []
    for path in plain:
        try:
            reports.append(ingest_file(home, stream, path, ts=ts, allow_duplicate=allow_duplicate,
                                       sha=digests.get(path)))
        except IngestError as exc:
            raise _partial(exc, reports) from exc
    uris = [f.name for f in files if f.uri]
    if uris:
        try:
            parsed = spark_ingest.parse_uris(home, uris, ts)
            reports += spark_ingest.write(home, stream, parsed, _ingests(home), allow_duplicate=allow_duplicate)
        except IngestError as exc:
            raise _partial(exc, reports) from exc
    return reports


def check_stream_name(stream: str) -> None:
    from reasonlake.declare.view import NAME_PATTERN

    if not isinstance(stream, str) or not NAME_PATTERN.fullmatch(stream):
        raise IngestError(
            f"stream {stream!r} is not a stream name: letters, digits and _, not starting with a "
            "digit (the name in the 'stream' field of the views that read it)")


def _check_new(home: Home, stream: str, paths: list[Path]) -> dict[Path, str]:
    """Each file's content not ingested into ``stream`` before, nor twice in this call; the
    files' digests."""
    ingests = _ingests(home).filter(pl.col("stream") == stream)
    seen: dict[str, Path] = {}
    for path in paths:
        if not path.is_file():
            raise IngestError(f"{path}: no such file")
        sha = sha256_of(path)
        earlier = ingests.filter(pl.col("sha256") == sha)
        if earlier.height:
            first = earlier.sort("seq").row(0, named=True)
            raise DuplicateFileError(
                f"{path}: this content was already ingested into stream '{stream}' "
                f"(as {first['file']}, ingest #{first['seq']}); nothing of this call was ingested; "
                "leave the file out or pass --allow-duplicate-file to ingest it again")
        if sha in seen:
            raise DuplicateFileError(
                f"{path}: the same content as {seen[sha]}, given in the same call; nothing was "
                "ingested; leave one out or pass --allow-duplicate-file")
        seen[sha] = path
    return {path: sha for sha, path in seen.items()}


def _partial(exc: IngestError, committed: list[IngestReport]) -> IngestError:
    if not committed:
        return exc
    done = ", ".join(f"{r.file} (ingest #{r.seq})" for r in committed)
    return type(exc)(f"{exc}; already committed by this call: {done} (a re-run finds them ingested: "
                     "leave them out)", code=exc.code)


def ingest_frame(home: Home, stream: str, frame, *, name: str = "dataframe",
                 allow_duplicate: bool = False) -> IngestReport:
    """A DataFrame's rows (s, p, o, ts) as one ingest, checked and quarantined as JSONL rows
    are; ``name`` stands for the file in the events and quarantine tables."""
    from reasonlake.engine import spark_ingest

    check_stream_name(stream)
    parsed = spark_ingest.parse_frame(home, frame, name)
    return spark_ingest.write(home, stream, parsed, _ingests(home), allow_duplicate=allow_duplicate)[0]
