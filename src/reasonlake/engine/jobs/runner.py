"""The streaming runner: a Structured Streaming query over a folder (or glob) of stream files
or a Kafka topic of JSONL rows, that ingests each micro-batch and slides views to the latest
close the data allows.

Each micro-batch is one ingest on the executors (``spark_ingest``) whose Delta writes carry
the query's id and the batch id as their transaction, so a batch replayed after a crash
adds nothing twice; files a replayed batch already recorded (same name, same content) are
skipped. The views then slide in this process, which keeps their warm state (the read-ahead,
the resident facts) from one batch to the next. The query's checkpoint lives under the home.
"""
from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

import polars as pl
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from reasonlake.engine.ingest import ingest_log, spark_ingest
from reasonlake.engine.ingest.events import BATCH_BYTES, ingest_contents
from reasonlake.engine.jobs.rspql.advance import advance
from reasonlake.engine.jobs.slide import slide
from reasonlake.engine.process import faults
from reasonlake.engine.process.timing import step
from reasonlake.engine.store import locations, state
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.rspql_registry import registered
from reasonlake.engine.store.session import kafka_package
from reasonlake.errors import EnvironmentSetupError, ExpectationFailedError, UsageError
from reasonlake.parse.formats import SUPPORTED_SUFFIXES

_BINARY_FILE = "path STRING, modificationTime TIMESTAMP, length BIGINT, content BINARY"


@dataclass(frozen=True)
class KafkaSource:
    """A Kafka topic whose messages are JSONL rows. ``options`` go to Spark's Kafka source
    as given (consumer settings with their ``kafka.`` prefix, e.g. ``kafka.security.protocol``,
    or the source's own, e.g. ``maxOffsetsPerTrigger``)."""
    bootstrap: str
    topic: str
    starting_offsets: str = "earliest"
    options: tuple[tuple[str, str], ...] = ()

    def key(self) -> str:
        # the topic names the checkpoint: a new broker address keeps the offsets reached
        return f"kafka:{self.topic}"


@dataclass
class RunReport:
    batches: int = 0
    files: int = 0
    items: int = 0
    quarantined: int = 0
    closes: dict[str, int] = field(default_factory=dict)  # view -> closes processed
    last_close: dict[str, int | None] = field(default_factory=dict)
    newest_event: int | None = None
    withheld: dict[str, int] = field(default_factory=dict)  # view -> closes a failed expectation withheld


def checkpoint_path(home: Home, stream: str, source: str | KafkaSource) -> str:
    key = hashlib.sha256((source.key() if isinstance(source, KafkaSource) else source).encode()).hexdigest()[:16]
    return home.path(f"_runs/{stream}-{key}")


def _stream_of(home: Home, views: list[str]) -> str:
    streams = {home.view(v).stream for v in views}
    if len(streams) != 1:
        raise UsageError(
            f"views {', '.join(views)} read different streams ({', '.join(sorted(streams))}); "
            "run one runner per stream")
    return streams.pop()


def _newest_event(home: Home, stream: str) -> int | None:
    row = home.table("events").where(F.col("stream") == stream).agg(F.max("ts").alias("ts")).first()
    return row.ts


def run(home: Home, views: list[str], source: str | KafkaSource, *, trigger: str = "available-now",
        lateness: int = 0, ts: int | None = None, progress=None) -> RunReport:
    """Run until the source (a folder or glob of stream files, or a Kafka topic) is drained
    (``available-now``) or for ever (an interval such as ``30 seconds``), ingesting every new
    file or message and sliding ``views`` after each micro-batch."""

    # an RSP-QL query's windows are views: slid with the others, the query evaluated after them
    rspql = registered(home)
    queries = [name for name in views if name in rspql and name not in home.view_names()]
    views = list(dict.fromkeys([*(v for v in views if v not in queries),
                                *(view for q in queries for _, view in rspql[q].views)]))
    for view in views:
        home.view(view)  # unknown views fail before the query starts
    stream = _stream_of(home, views)
    report = RunReport(newest_event=_newest_event(home, stream))
    for view in views:
        history = state.lineage(home, view)
        report.last_close[view] = history[-1].close if history else None
    checkpoint = checkpoint_path(home, stream, source)
    show = progress if progress is not None else (_print_progress if sys.stderr.isatty() else None)
    batches = _Batches(home, views, stream, source, report, checkpoint, lateness=lateness, ts=ts, show=show,
                       queries=queries)
    reader = _kafka_reader(home, source) if batches.kafka else (
        home.spark.readStream.format("binaryFile").schema(_BINARY_FILE).load(source))
    writer = reader.writeStream.foreachBatch(batches).option("checkpointLocation", checkpoint)
    if trigger == "available-now":
        writer = writer.trigger(availableNow=True)
    else:
        writer = writer.trigger(processingTime=trigger)
    remote = locations.is_connect(home.spark)
    if remote:
        seq_before = _last_ingest_seq(home)
    query = writer.start()
    try:
        query.awaitTermination()
    except Exception:
        if batches.failure:
            raise batches.failure[0] from None
        raise
    finally:
        if query.isActive:
            query.stop()
    if batches.failure:
        raise batches.failure[0]
    if remote:
        _report_from_tables(home, views, stream, seq_before, report, query)
    return report


def _last_ingest_seq(home: Home) -> int:
    return int(ingest_log.ingests(home).get_column("seq").max() or 0)


def _report_from_tables(home: Home, views: list[str], stream: str, seq_before: int, report: RunReport,
                        query) -> None:
    """Over Spark Connect the batches run in a Python process beside the server, not in
    this one: what they did is read back from the tables they wrote (the ingests, the
    views' closes) and the query's progress."""

    new = (home.table("ingests").where((F.col("seq") > seq_before) & (F.col("stream") == stream))
           .agg(F.count("*").alias("files"), F.sum("items").alias("items"),
                F.sum("quarantined").alias("quarantined")).first())
    report.files, report.items, report.quarantined = new.files, new.items or 0, new.quarantined or 0
    report.batches = sum(1 for p in query.recentProgress if (p.numInputRows or 0) > 0)
    for view in views:
        history = state.lineage(home, view)
        before = report.last_close[view]
        report.closes[view] = sum(1 for r in history if before is None or r.close > before)
        report.last_close[view] = history[-1].close if history else None
    report.newest_event = _newest_event(home, stream)


class _Batches:
    """What the query does with each micro-batch: ingest its new sources, then slide the
    views whose next close is due. The first failure stops the query (``run`` raises it)."""

    def __init__(self, home: Home, views: list[str], stream: str, source, report: RunReport, checkpoint: str, *,
                 lateness: int, ts: int | None, show, queries: list[str] = ()):
        self.home, self.views, self.stream, self.report = home, views, stream, report
        self.queries = list(queries)  # RSP-QL queries, evaluated after their windows' views slid
        self.kafka = isinstance(source, KafkaSource)
        self.query_key = hashlib.sha256(checkpoint.encode()).hexdigest()[:16]
        self.lateness, self.ts, self.show = lateness, ts, show
        self.failure: list[BaseException] = []
        self.supported = F.lower(F.regexp_extract("path", r"(\.[^./]+)$", 1)).isin(*SUPPORTED_SUFFIXES)

    def __call__(self, files, batch_id: int) -> None:
        if self.failure:
            return
        try:
            started = time.perf_counter()
            self._ingest(files, batch_id)
            self._slide()
            self.report.batches += 1
            if self.show:
                self.show(batch_id, self.report, time.perf_counter() - started)
        except BaseException as exc:  # stop the query; the caller raises it
            self.failure.append(exc)
            raise

    def _ingest(self, files, batch_id: int) -> None:
        with step("run: ingests"):
            ingests = ingest_log.ingests(self.home)
        # a replayed batch: its sources are recorded already (same name, same content)
        recorded = set(ingests.filter(pl.col("stream") == self.stream).select("file", "sha256").iter_rows())
        local = None if self.kafka else self._local_files(files)
        if local is not None:
            self._ingest_in_driver(local, recorded, batch_id)
            return
        if self.kafka:
            parsed = spark_ingest.parse_messages(files)
        else:
            parsed = spark_ingest.parse_files(files.where(self.supported).select("path", "content"), self.ts)
        fresh = [s for s in parsed.sources if (s.file, s.sha256) not in recorded]
        if not fresh:
            return
        parsed = spark_ingest.Parsed(parsed.rows.where(F.col("file").isin([s.file for s in fresh])), fresh)
        txn_id, version = self._txn(batch_id)
        reports = spark_ingest.write(self.home, self.stream, parsed, allow_duplicate=True,
                                     txn={"txnAppId": txn_id, "txnVersion": version})
        times = [s.newest for s in fresh if s.newest is not None]
        self._counted(reports, max(times) if times else None)

    def _txn(self, batch_id: int) -> tuple[str, int]:
        """The Delta transaction of the batch's writes: a replayed batch writes nothing twice."""
        return f"run-{self.query_key}", batch_id

    def _counted(self, reports: list, newest: int | None) -> None:
        """The batch's ingests, in the run's report."""
        report = self.report
        report.files += len(reports)
        report.items += sum(r.items for r in reports)
        report.quarantined += sum(r.quarantined for r in reports)
        faults.reached("run: ingested")
        if newest is not None:
            report.newest_event = max(newest, report.newest_event or newest)

    def _local_files(self, files) -> list[tuple[str, Path]] | None:
        """The batch's files (name as the source lists it, local path), where this process
        can ingest them itself: a classic session over a local home, every file on this
        machine, and together within the driver's ingest batch (``BATCH_BYTES``); else None
        (the executors parse and write them)."""
        home = self.home
        if locations.is_connect(home.spark) or home.access.folder(home.root) is None:
            return None
        with step("run: list"):
            names = [r.path for r in files.where(self.supported).select("path").collect()]
        found = []
        for name in names:
            parsed = urlparse(name)
            if parsed.scheme not in ("", "file"):
                return None
            found.append((name, Path(unquote(parsed.path))))
        try:
            if sum(path.stat().st_size for _, path in found) > BATCH_BYTES:
                return None
        except OSError:  # gone or unreadable here: the executors say what is wrong
            return None
        return found

    def _ingest_in_driver(self, files: list[tuple[str, Path]], recorded: set, batch_id: int) -> None:
        """The batch's files read, parsed and committed in this process (``ingest_contents``)
        under the same transaction the executors' writes carry: a small batch costs no Spark
        job and a Delta commit per table written by the driver."""
        fresh = []
        for name, path in files:
            content = path.read_bytes()
            sha = hashlib.sha256(content).hexdigest()
            if (name, sha) not in recorded:
                fresh.append((name, sha, content))
        if fresh:
            reports, newest = ingest_contents(self.home, self.stream, fresh, ts=self.ts, txn=self._txn(batch_id))
            self._counted(reports, newest)

    def _slide(self) -> None:
        report = self.report
        if report.newest_event is None:
            return
        until = report.newest_event - self.lateness
        for view in self.views:
            if not _close_due(self.home, view, report.last_close[view], until):
                continue  # a quiet batch: nothing to ask the view's tables
            closed = _slide_on(self.home, view, report, until)
            report.closes[view] = report.closes.get(view, 0) + len(closed)
            if closed:
                report.last_close[view] = closed[-1].close
        if self.queries:

            for query in self.queries:  # each with the queries it reads, in dependency order
                evaluated = [e for e in advance(self.home, query, until) if e.query == query]
                report.closes[query] = report.closes.get(query, 0) + len(evaluated)


def _slide_on(home: Home, view: str, report: RunReport, until: int) -> list:
    """``slide``, going on past a close a failed expectation withheld (on_failure: fail):
    a runner lives for hours, and one bad close must not stop every view; the close is
    recorded and withheld, the failure printed and counted in the report."""
    closed: list = []
    before = state.lineage(home, view)
    while True:
        try:
            return closed + slide(home, view, until)
        except ExpectationFailedError as exc:
            print(f"reasonlake: view {view}: {exc}", file=sys.stderr)
            history = state.lineage(home, view)
            closed += history[len(before):]
            before = history
            report.withheld[view] = report.withheld.get(view, 0) + 1


def _close_due(home: Home, view: str, last_close: int | None, until: int) -> bool:
    """Whether a slide to ``until`` has a close to process after ``last_close``."""
    window = home.view(view).window
    following = window.first_close if last_close is None else last_close + window.slide
    return until >= following


def _kafka_reader(home: Home, source: KafkaSource):
    reader = (home.spark.readStream.format("kafka").option("kafka.bootstrap.servers", source.bootstrap)
              .option("subscribe", source.topic).option("startingOffsets", source.starting_offsets))
    for key, value in source.options:
        reader = reader.option(key, value)
    try:
        return reader.load()
    except AnalysisException as exc:
        if "kafka" not in str(exc).lower():
            raise

        raise EnvironmentSetupError(
            f"this Spark session has no Kafka connector: add the Maven package {kafka_package()} to the "
            "cluster's libraries (the embedded session adds it for `reasonlake run --source kafka`)") from None


def _print_progress(batch_id: int, report: RunReport, seconds: float) -> None:
    lag = [f"{v} {(report.newest_event - c) / 1000:.0f}s" for v, c in report.last_close.items()
           if c is not None and report.newest_event is not None]
    print(f"batch {batch_id}: {report.files} files, {report.items} items, {report.quarantined} quarantined; "
          f"closes {sum(report.closes.values())}; lag behind the newest event: {', '.join(lag) or '-'} "
          f"({seconds:.1f}s)", file=sys.stderr, flush=True)
