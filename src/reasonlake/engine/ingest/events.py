"""Ingest: stream files into the append-only `events` table; bad rows into `quarantine`.

Nothing is lost: every row is either an event or a quarantined row with its reason. Each
write is idempotent (Delta `txnAppId`/`txnVersion` per file content and attempt), so a
crash between writes followed by a re-run gives the same tables.
"""
from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from reasonlake.declare.view import NAME_PATTERN
from reasonlake.engine.ingest import already_ingested, ingest_log
from reasonlake.engine.ingest.ingest_log import IngestReport
from reasonlake.engine.process import faults
from reasonlake.engine.process.progress import Progress, Steps
from reasonlake.engine.process.timing import step
from reasonlake.engine.steps import admit
from reasonlake.engine.store import inputs, lease, table_cache, table_writes
from reasonlake.engine.store.dictionary import (
    append_terms,
    driver_term_ids,
    unseen_terms,
)
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.schemas import EVENT_SCHEMA, INGEST_SCHEMA, QUARANTINE_SCHEMA
from reasonlake.errors import DuplicateFileError, IngestError, UsageError
from reasonlake.parse.formats import check_readable, parse_bytes, parse_file

DAY_MS = 86_400_000


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# Plain files committed together: up to this many bytes of input a commit (the items of a
# batch are held in the driver until it is written).
BATCH_BYTES = 256 << 20


@dataclass(frozen=True)
class _Read:
    path: Path
    sha: str
    previous: int  # earlier ingests of this content into the stream (--allow-duplicate-file)
    parsed: object  # parse.formats.ParsedFile
    # the ingests of a file of this name it was compared with (None: not compared,
    # --allow-duplicate-file), checked again under the ingest lease
    earlier: tuple[int, ...] | None = None
    fresh: pl.DataFrame | None = None  # --only-new-items: the items not ingested from it yet
    notes: tuple[str, ...] = ()
    name: str | None = None  # the file's name in the tables, where it is not the path (the runner's URIs)

    @property
    def file(self) -> str:
        return self.name if self.name is not None else str(self.path)

    def frame(self) -> pl.DataFrame:
        return self.fresh if self.fresh is not None else self.parsed.frame()

    @property
    def count(self) -> int:
        return self.fresh.height if self.fresh is not None else self.parsed.count

    @property
    def already(self) -> int:
        return self.parsed.count - self.count


def _read(home: Home, stream: str, path: Path, ts: int | None, sha: str | None, *, allow_duplicate: bool,
          only_new: bool, outcome: str) -> _Read:
    """One plain file parsed (its content already checked against the ingests by
    ``_check_new``, unless duplicates are allowed), and compared with the earlier ingests of
    its name: stopped if it holds items of theirs (unless ``only_new``: those are left out)."""
    if not path.is_file():
        raise IngestError(f"{path}: no such file")
    sha = sha or sha256_of(path)
    ingested = ingest_log.ingests(home)
    before = ingest_log.earlier(ingested, stream, sha)
    with step("ingest: parse"):
        parsed = parse_file(path, ts=ts, file_key=sha[:12])
    if allow_duplicate:
        return _Read(path, sha, before.height, parsed)
    seqs = already_ingested.earlier(ingested, stream, str(path))
    if not seqs:
        return _Read(path, sha, before.height, parsed, earlier=seqs)
    with step("ingest: earlier items"):
        fresh, found = already_ingested.in_driver(home, stream, str(path), seqs, parsed.frame(), sha[:12])
    notes = already_ingested.check(found, stream, only_new=only_new, ts=ts, outcome=outcome)
    # without --only-new-items nothing of it went in before: all of it goes in, as its own
    return _Read(path, sha, before.height, parsed, earlier=seqs, fresh=fresh if only_new else None, notes=notes)


def _commit(home: Home, stream: str, files: list[_Read], allow_duplicate: bool,
            txn: tuple[str, int] | None = None) -> list[IngestReport]:
    """Append the files' events, quarantined rows and ingest records: one commit per table
    for all of them, under the home's ingest lease (the next ingest number and the new
    terms are read and appended by one ingest at a time). Idempotent: a re-run of the same
    files after a crash between the commits writes nothing twice (one Delta transaction id
    for the batch: by content, or ``txn``)."""
    with lease.ingesting(home):
        return _commit_held(home, stream, files, allow_duplicate, txn)


def _commit_held(home: Home, stream: str, files: list[_Read], allow_duplicate: bool,
                 txn: tuple[str, int] | None) -> list[IngestReport]:
    ingested = ingest_log.ingests(home)
    for f in files:  # checked before parsing; an ingest of the same content may have committed since
        before = ingest_log.earlier(ingested, stream, f.sha)
        if before.height > f.previous and not allow_duplicate:
            raise ingest_log.duplicate(f.path, stream, before, meanwhile=True, outcome="this batch was not ingested")
        if f.earlier is not None:  # and one of a file of the same name, which it was compared with
            now = already_ingested.earlier(ingested, stream, f.file)
            if now != f.earlier:
                raise already_ingested.changed_meanwhile(f.file, stream, now, outcome="this batch was not ingested")
    first_seq = ingest_log.next_seq(ingested)
    seqs = [first_seq + n for n in range(len(files))]
    txn = txn or _txn(stream, files)
    _commit_events(home, stream, files, seqs, txn)
    faults.reached("ingest: events")
    rejected = [(stream, f.file, r.line, r.raw, r.reason, seq)
                for f, seq in zip(files, seqs) for r in f.parsed.rejected]
    if rejected:
        table_writes.append_rows(home.spark, home.path("quarantine"), rejected, QUARANTINE_SCHEMA, txn=txn)
    before = table_cache.latest_commit(home.spark, home.path("ingests"))
    records = [(seq, stream, f.file, f.sha, f.count, len(f.parsed.rejected))
               for f, seq in zip(files, seqs)]
    table_writes.append_rows(home.spark, home.path("ingests"), records, INGEST_SCHEMA, txn=txn)
    ingest_log.committed(home, ingested, before, records)
    return [IngestReport(
        file=f.file, seq=seq, items=f.count, quarantined=len(f.parsed.rejected),
        reasons=tuple((r.line, r.raw, r.reason) for r in f.parsed.rejected), notes=f.parsed.notes + f.notes,
        already=f.already,
    ) for f, seq in zip(files, seqs)]


def _txn(stream: str, files: list[_Read]) -> tuple[str, int]:
    """The batch's Delta transaction: by content, and by how many times it went in before."""
    if len(files) == 1:  # the id a single file's ingest has always had
        return f"ingest-{stream}-{files[0].sha}", files[0].previous + 1
    call = hashlib.sha256("\0".join(f.sha for f in files).encode()).hexdigest()
    return f"ingest-{stream}-{call}", max(f.previous for f in files) + 1


def _commit_events(home: Home, stream: str, files: list[_Read], seqs: list[int], txn: tuple[str, int]) -> None:
    frames = [f.frame().with_columns(pl.lit(seq, pl.Int64).alias("ingest_seq"), pl.lit(f.file).alias("file"))
              for f, seq in zip(files, seqs) if f.count]
    if not frames:
        return
    # Terms are encoded once, here, so every view over the stream admits plain ids; the ids
    # are computed in the driver (the same hash as Spark's), and the events go to Delta from
    # Arrow in one job.
    items = pl.concat(frames)
    ids = driver_term_ids(pl.concat([items.get_column(x) for x in ("s", "p", "o")]))
    with step("ingest: terms"):
        unseen = unseen_terms(home.spark, home.path("terms"), ids)
    for x in ("s", "p", "o"):
        items = items.join(ids.rename({"term": x, "id": f"{x}_id"}), on=x, how="left")
    events = items.select(
        pl.lit(stream).alias("stream"), "s", "p", "o", "s_id", "p_id", "o_id", "ts",
        (pl.col("ts") // DAY_MS).alias("ts_day"), "ingest_seq", "file", "line", "event",
    )
    with step("ingest: events"), ThreadPoolExecutor(1) as beside:
        # the new terms (checked already) are committed beside the events: a crash between
        # the two leaves events no ingest record makes visible
        appended = beside.submit(append_terms, home.spark, home.path("terms"), unseen)
        before = table_cache.latest_commit(home.spark, home.path("events"))
        table_writes.append_frame(home.spark, home.path("events"), events, EVENT_SCHEMA, txn=txn)
        admit.after_ingest(home, stream, seqs[-1], before, events)
        appended.result()


def ingest_paths(home: Home, stream: str, args: list[str], *, ts: int | None = None,
                 allow_duplicate: bool = False, only_new: bool = False,
                 progress: Progress | None = None) -> list[IngestReport]:
    """Files, folders, globs and URIs (``inputs``): plain paths are read and parsed here, file
    by file; URIs are read and parsed by the executors, all in one call. Every argument is
    resolved, every file's type checked and every plain file's content checked against the
    ingests before anything is written; a failure after that (a crash, a disk) names the
    files already committed, which a re-run finds ingested. A file that holds items a file
    of its name put in the stream before stops the call, unless ``only_new`` (those items
    are left out: a file whose quarantined rows were fixed adds only their items) or
    ``allow_duplicate`` (all of it goes in again). ``progress``: told of each plain file
    parsed, and of the URIs once they are written."""
    # imported when called: the executors' ingest (Spark's readers) loads only for what Spark parses
    from reasonlake.engine.ingest import spark_ingest

    check_flags(allow_duplicate, only_new)
    check_stream_name(stream)
    files = inputs.resolve(home.spark, list(args))
    for f in files:
        check_readable(f.name, ts)
    plain = [Path(f.name) for f in files if not f.uri]
    digests, unchanged = _check_new(home, stream, plain, only_new) if not allow_duplicate else ({}, {})
    steps = Steps(progress, len(files)).start()
    reports: list[IngestReport] = []
    batch: list[_Read] = []
    size = 0
    try:
        # files parsed one by one, committed together up to BATCH_BYTES of input
        for path in plain:
            if path in unchanged:  # nothing new to add (--only-new-items)
                steps.advance(path.name)
                continue
            outcome = "nothing of this call was ingested" if not reports else "it was not ingested"
            batch.append(_read(home, stream, path, ts, digests.get(path), allow_duplicate=allow_duplicate,
                               only_new=only_new, outcome=outcome))
            steps.advance(path.name)
            size += path.stat().st_size
            if size >= BATCH_BYTES:
                reports += _commit(home, stream, batch, allow_duplicate)
                batch, size = [], 0
        if batch:
            reports += _commit(home, stream, batch, allow_duplicate)
    except IngestError as exc:
        raise _partial(exc, reports) from exc
    uris = [f.name for f in files if f.uri]
    if uris:
        try:
            parsed = spark_ingest.parse_uris(home, uris, ts)
            reports += spark_ingest.write(home, stream, parsed, allow_duplicate=allow_duplicate, only_new=only_new,
                                          by_file_name=True, ts=ts)
            steps.advance(f"{len(uris)} URI(s)", n=len(uris))
        except IngestError as exc:
            raise _partial(exc, reports) from exc
    order = {f.name if f.uri else str(Path(f.name)): n for n, f in enumerate(files)}
    return sorted(reports + list(unchanged.values()), key=lambda r: order.get(r.file, len(order)))


def ingest_contents(home: Home, stream: str, files: list[tuple[str, str, bytes]], *, ts: int | None,
                    txn: tuple[str, int]) -> tuple[list[IngestReport], int | None]:
    """Files already read (name, sha-256, content), parsed and committed in this process as one batch
    under the Delta transaction ``txn``, duplicates allowed: the streaming runner's
    micro-batch of local files, parsed as its executors would (the same parser and file key)
    and written with no Spark job. Returns the reports and the latest item time."""

    reads = []
    for name, sha, content in files:
        with step("ingest: parse"):
            parsed = parse_bytes(name, content, ts=ts, file_key=sha[:12])
        reads.append(_Read(Path(name), sha, 0, parsed, name=name))
    if not reads:
        return [], None
    newest = max((r.frame().get_column("ts").max() for r in reads if r.count), default=None)
    return _commit(home, stream, reads, allow_duplicate=True, txn=txn), newest


def check_flags(allow_duplicate: bool, only_new: bool) -> None:
    if only_new and allow_duplicate:
        raise UsageError("--only-new-items and --allow-duplicate-file: give one (the first leaves out the items "
                         "already ingested from a file of the same name, the second ingests all of them again)")


def check_stream_name(stream: str) -> None:
    if not isinstance(stream, str) or not NAME_PATTERN.fullmatch(stream):
        raise IngestError(
            f"stream {stream!r} is not a stream name: letters, digits and _, not starting with a "
            "digit (the name in the 'stream' field of the views that read it)")


def _check_new(home: Home, stream: str, paths: list[Path],
               only_new: bool) -> tuple[dict[Path, str], dict[Path, IngestReport]]:
    """Each file's content not ingested into ``stream`` before, nor twice in this call: the
    files' digests. With ``only_new``, content ingested before under the file's own name has
    nothing new to add: those files are left out, with their reports."""
    ingested = ingest_log.ingests(home)
    seen: dict[str, Path] = {}
    unchanged: dict[Path, IngestReport] = {}
    for path in paths:
        if not path.is_file():
            raise IngestError(f"{path}: no such file")
        sha = sha256_of(path)
        before = ingest_log.earlier(ingested, stream, sha)
        if before.height and only_new:
            same_name = set(already_ingested.earlier(ingested, stream, str(path))) & set(before.get_column("seq"))
            if same_name:
                unchanged[path] = IngestReport(file=str(path), seq=max(same_name), items=0, quarantined=0,
                                               reasons=(), nothing_new=True)
                continue
        if before.height:
            raise ingest_log.duplicate(path, stream, before)
        if sha in seen:
            raise DuplicateFileError(
                f"{path}: the same content as {seen[sha]}, given in the same call; nothing was "
                "ingested; leave one out or pass --allow-duplicate-file")
        seen[sha] = path
    return {path: sha for sha, path in seen.items()}, unchanged


def _partial(exc: IngestError, committed: list[IngestReport]) -> IngestError:
    if not committed:
        return exc
    done = ", ".join(f"{r.file} (ingest #{r.seq})" for r in committed)
    return type(exc)(f"{exc}; already committed by this call: {done} (a re-run finds them ingested: "
                     "leave them out)", code=exc.code)


def ingest_frame(home: Home, stream: str, frame, *, name: str = "dataframe",
                 allow_duplicate: bool = False) -> IngestReport:
    """A DataFrame's rows (s, p, o, ts) as one ingest, checked and quarantined as JSONL rows
    are; ``name`` stands for the file in the events and quarantine tables (a frame is no file:
    its items are not compared with earlier ingests of the name, as a file's are)."""
    # imported when called: the executors' ingest (Spark's readers) loads only for what Spark parses
    from reasonlake.engine.ingest import spark_ingest


    check_stream_name(stream)
    parsed = spark_ingest.parse_frame(home, frame, name)
    return spark_ingest.write(home, stream, parsed, allow_duplicate=allow_duplicate)[0]
