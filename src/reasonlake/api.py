"""The Python API: everything the CLI does, returning DataFrames where there are rows."""
from __future__ import annotations

import time
from pathlib import Path

from reasonlake.declare.view import load_view
from reasonlake.engine import read
from reasonlake.engine.ingest import IngestReport, ingest_frame, ingest_paths
from reasonlake.engine.rebuild import rebuild as rebuild_view
from reasonlake.engine.slide import slide as slide_view
from reasonlake.engine.store import state
from reasonlake.engine.store.home import Home, resolve_home
from reasonlake.engine.store.session import get_spark
from reasonlake.engine.views import CreateReport, check_views, create_view


def now_ms() -> int:
    return int(time.time() * 1000)


class Lakehouse:
    """A reasonlake home on a Spark session (the active one, or an embedded local one)."""

    def __init__(self, home: str | None = None, spark=None, *, kafka: bool = False, metastore: bool = False,
                 wait: float = 0):
        """``kafka``: add Spark's Kafka connector to the embedded session (for ``run`` over a
        Kafka topic; a cluster's session must have it already). ``metastore``: keep a Hive
        metastore in the (local) home for ``init(catalog="spark_catalog")``; a home that
        has one opens it without being asked. ``wait``: seconds a command that writes a view
        (slide, rebuild, repair, create_views of a changed view, run) waits for another
        process writing it (``WriterBusyError`` after that)."""
        from reasonlake.engine.store import catalog
        from reasonlake.engine.store.session import kafka_package

        root = resolve_home(home)  # a home that cannot be one fails before Spark starts
        packages = (kafka_package(),) if kafka else ()
        conf = catalog.metastore_conf(root) if metastore or catalog.local_metastore(root) else None
        if conf and spark is None:
            Path(root, catalog.METASTORE).mkdir(parents=True, exist_ok=True)
        self.home = Home(spark=spark or get_spark(packages=packages, conf=conf), root=root, writer_wait=wait)
        self.sql_tables: list[str] = []  # the tables the last `sql` call could name

    @property
    def spark(self):
        return self.home.spark

    def release(self) -> None:
        """Hand back the writer leases this process holds (one writer per view): at the end
        of a job, so the next writer need not wait for them to run out (60 s after the last
        write, ``REASONLAKE_LEASE_SECONDS``)."""
        from reasonlake.engine.store import lease

        lease.release_all()

    def init(self, *, catalog: str | None = None, schema: str = "reasonlake") -> list[str]:
        """Create or migrate the home; with ``catalog``, keep ``catalog.schema`` in the home
        and register the views (decoded, at their last published close) and the system
        tables there, kept current by every later close."""
        from reasonlake.engine.store import catalog as names

        applied = self.home.init()
        if catalog is not None:
            names.configure(self.home, catalog, schema)
        else:  # a home registered before: every name re-pointed at its view's last close
            names.refresh_all(self.home)
        return applied

    def create_views(self, files, *, rebuild: bool = False) -> list[CreateReport]:
        decls = [load_view(f) for f in files]
        self.home.require_init()
        checked = check_views(self.home, decls, rebuild=rebuild)  # all checked before any is written
        return [create_view(self.home, c, now=now_ms()) for c in checked]

    def ingest(self, stream: str, files, *, ts: int | None = None, allow_duplicate: bool = False,
               progress=None) -> list[IngestReport]:
        """Files, folders, globs (plain paths, read here) and URIs of any file system the
        session reads (``s3a://``, ``abfss://``, ``dbfs:/``, ``file:``: read by the executors).
        ``progress(done, total, what)``: called per file (``engine.progress``)."""
        self.home.require_init()
        return ingest_paths(self.home, stream, [str(f) for f in files], ts=ts, allow_duplicate=allow_duplicate,
                            progress=progress)

    def ingest_frame(self, stream: str, frame, *, name: str = "dataframe",
                     allow_duplicate: bool = False) -> IngestReport:
        """A DataFrame with columns s, p, o (N-Triples terms) and ts (a timestamp, epoch
        milliseconds or a time string), validated and quarantined as JSONL rows are."""
        self.home.require_init()
        return ingest_frame(self.home, stream, frame, name=name, allow_duplicate=allow_duplicate)

    def run(self, views, source, *, trigger: str = "available-now", lateness: int = 0,
            ts: int | None = None, progress=None):
        """Ingest the stream files arriving in ``source`` (a folder or glob, path or URI), or
        the messages of a Kafka topic (``runner.KafkaSource``; the Lakehouse made with
        ``kafka=True``), with Structured Streaming and slide ``views`` after each micro-batch:
        until the source is drained (``available-now``) or for ever (an interval such as
        ``'30 seconds'``). ``progress(batch_id, report, seconds)``: called after each
        micro-batch (default: a line on stderr when it is a terminal)."""
        from reasonlake.engine.runner import KafkaSource, run

        self.home.require_init()
        source = source if isinstance(source, KafkaSource) else str(source)
        return run(self.home, list(views), source, trigger=trigger, lateness=lateness, ts=ts, progress=progress)

    def slide(self, view: str, until: int | str | None = None, *, progress=None) -> list[state.Published]:
        """Process the view's closes up to ``until`` (epoch ms or an ISO 8601 time with a zone;
        default: now, which can be many closes for a stream from the past).
        ``progress(done, total, what)``: called per close (``engine.progress``)."""
        from reasonlake.declare.durations import parse_time

        self.home.require_init()
        return slide_view(self.home, view, now_ms() if until is None else parse_time(until, what="until"), progress)

    def rebuild(self, view: str, at: int | None = None, *, rewind: bool = False, progress=None) -> state.Published:
        """Rematerialize a view from scratch at ``at`` (default: its last processed close); a
        close before that moves the view back to it, only with ``rewind``.
        ``progress(done, total, what)``: called per step (``engine.progress``)."""
        self.home.require_init()
        self.home.require_created(view)
        return rebuild_view(self.home, view, at, now=now_ms(), rewind=rewind, progress=progress)

    def view(self, name: str, *, close: int | None = None, version: int | None = None):
        """The view's content as a DataFrame (subject, predicate, object, origin, expires, inferred, rule)."""
        self.home.require_init()
        return read.decoded(self.home, name, close, version)

    def export(self, name: str, *, close: int | None = None, version: int | None = None):
        self.home.require_init()
        return read.ntriples(self.home, name, close, version)

    def sql(self, query: str):
        """A query over the views (each a table named after it) and the rl_* system tables;
        statements that write, or read paths outside the home, are refused (``sql_guard``)."""
        from reasonlake.engine.sql_guard import check_read_only

        check_read_only(query, self.home.root)
        self.home.require_init()
        self.sql_tables = read.register_sql_views(self.home)
        return self.spark.sql(query)

    def history(self, name: str) -> list[state.Published]:
        self.home.require_init()
        self.home.view(name)
        return state.lineage(self.home, name)

    def validate(self, name: str, *, close: int | None = None, version: int | None = None,
                 docs: str | None = None):
        """Run the view's suites (built-in and its own) on a close, by default the last processed
        one (withheld or not); the results are recorded in rl_expectations and returned."""
        from reasonlake.engine import expectations

        self.home.require_init()
        decl = self.home.view(name)
        history = state.lineage(self.home, name)
        if close is None and version is None and history:
            record = history[-1]  # the last processed close, withheld or not
        else:
            record, _ = read.pick(self.home, name, close, version)  # (or: no processed close yet)
        return expectations.check(self.home, decl, record.close, record.version, record.events_seq,
                                  run="validate", docs=docs, violations_version=record.violations_version)

    def violations(self, name: str, *, close: int | None = None):
        """The violations live at a close (default: the last processed one), decoded."""
        from delta.tables import DeltaTable

        from reasonlake.engine.store import violations_table as violations

        self.home.require_init()
        self.home.view(name)
        history = state.lineage(self.home, name)
        if not history or not DeltaTable.isDeltaTable(self.spark, violations.path(self.home, name)):
            return None, history[-1].close if history else None
        record, at = read.pick(self.home, name, close, None)
        from reasonlake.engine.store import retention

        version = record.violations_version
        if record != history[-1]:
            retention.check_readable(self.home, name, record.version, at)
        elif version is not None:
            version = retention.pinned(self.home, violations.path(self.home, name), version)
        return violations.decoded(self.home, name, at, version), at

    def rules(self, name: str):
        """The compiled program of a view (or of a view file): active rules, ignored axioms."""
        from reasonlake.compile.program import compile_program
        from reasonlake.compile.tbox import load_tbox

        if name.endswith((".yaml", ".yml")) and Path(name).is_file():
            decl = load_view(name)
        else:
            self.home.require_init()
            decl = self.home.view(name)
        return decl, compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)

    def explain_removed(self, name: str, triple: str):
        """When and why repair removed a triple: one record per removed item."""
        from reasonlake.engine import audit

        self.home.require_init()
        return audit.removals(self.home, name, triple)

    def explain_why(self, name: str, triple: str, *, close: int | None = None):
        """One derivation of a triple in the view at ``close`` (default: the last processed
        close), down to stream items: (root step, close, terms by id); ``derivation.to_json``
        turns it into nested dicts."""
        from reasonlake.engine.audit import parse_triple
        from reasonlake.engine.reason import derivation

        self.home.require_init()
        return derivation.why(self.home, name, parse_triple(triple, "--why"), close)

    def explain_presence(self, name: str, triple: str):
        """When a fact was last in the view, its origin and rule, and whether it expired."""
        from reasonlake.engine import audit

        self.home.require_init()
        return audit.presence(self.home, name, triple)

    def changes(self, name: str, *, after=None, upto=None):
        """What entered (op ``+``) and left (``-``) the view at each close in ``(after, upto]``
        (ISO times or epoch ms; default: the closes since the processed close before the last):
        a DataFrame of close, op, subject, predicate, object, inferred. Renewals are no change."""
        from reasonlake.engine.changes import changes

        self.home.require_init()
        from reasonlake.declare.durations import parse_time

        return changes(self.home, name, None if after is None else parse_time(after, what="after"),
                       None if upto is None else parse_time(upto, what="upto"))

    def vacuum(self, names: list[str] | None = None, *, retain_ms: int | None = None) -> list:
        """Vacuum views (default: every view) to their retention (``retain``, or ``retain_ms``
        for this call): storage stops growing, and closes older than the retention can no
        longer be read. One ``retention.Vacuumed`` per view."""
        from reasonlake.engine.store import retention

        self.home.require_init()
        names = names or self.home.view_names()
        for name in names:
            self.home.view(name)  # an unknown name fails before anything is vacuumed
        return [retention.vacuum(self.home, name, retain_ms) for name in names]

    def readable_versions(self, name: str) -> set[int] | None:
        """The versions of a view's table still readable after a vacuum (None: all of them)."""
        from reasonlake.engine.store import retention

        return retention.readable_versions(self.home, name)

    def repair(self, name: str, *, progress=None):
        """Re-check the whole current window and repair it (idempotent); (record|None, removals).
        ``progress(done, total, what)``: called per step (``engine.progress``)."""
        from reasonlake.engine.repair_job import repair_job

        self.home.require_init()
        self.home.require_created(name)
        return repair_job(self.home, name, progress)
