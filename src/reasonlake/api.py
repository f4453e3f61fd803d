"""The Python API: a ``Lakehouse`` is a home on a Spark session, with one method per command.

Nothing here starts Spark until a method needs it (the session is made on first use of
``home`` or ``spark``), and the engine is imported by the methods that use it: a command
that only checks its arguments, compiles a view file or prints help answers at once. The
command line (``reasonlake.cli``) goes through this module only.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from reasonlake import settings
from reasonlake.declare.view import RETAIN_ZERO, load_view, parse_retention  # noqa: F401 (for the CLI)
from reasonlake.plan.durations import format_time, parse_duration, parse_time  # noqa: F401 (for the CLI)
from reasonlake.plan.windows import NEVER  # noqa: F401 (for the CLI)


def now_ms() -> int:
    return int(time.time() * 1000)


class Lakehouse:
    """A reasonlake home on a Spark session (the active one, or an embedded local one)."""

    def __init__(self, home: str | None = None, spark=None, *, remote: str | None = None, kafka: bool = False,
                 metastore: bool = False, wait: float = 0, defer: bool = False, inputs=(), server: bool = True):
        """``kafka``: add Spark's Kafka connector to the embedded session (for ``run`` over a
        Kafka topic; a cluster's session must have it already). ``metastore``: keep a Hive
        metastore in the (local) home for ``init(catalog="spark_catalog")``; a home that
        has one opens it without being asked. ``wait``: seconds a command that writes a view
        (slide, rebuild, repair, create_views of a changed view, run) waits for another
        process writing it (``WriterBusyError`` after that). ``remote``: a Spark Connect
        server's ``sc://HOST:PORT`` (default ``$SPARK_REMOTE``; else the home's own server
        when ``reasonlake server start`` runs one, else the active or an embedded session).
        ``defer``: start a new session only when a call first needs it (``DeferredSession``):
        a command that reads the home's files itself then starts none (only for calls known
        to build no Spark expression before their first read: pyspark's need a session).
        ``inputs``: the paths or URIs a command will read besides the home (an ingest's files,
        the runner's source): an ``s3a://`` one, like an ``s3a://`` home, adds S3A to the
        embedded session (``engine.store.object_store``). ``server=False``: not the home's
        command server even when one runs (``--in-process``)."""
        # imported when called: it loads polars
        from reasonlake.engine.store.home import resolve_home

        self._root = resolve_home(home)  # a home that cannot be one fails before Spark starts
        self._given, self._kafka, self._metastore, self._wait = spark, kafka, metastore, wait
        self._remote, self._defer, self._use_server = remote, defer, server
        self._inputs = [str(i) for i in inputs]
        self._home = None
        self.sql_tables: list[str] = []  # the tables the last `sql` call could name

    @property
    def home(self):
        """The home on its session (``engine.store.home.Home``), the session started on first use."""
        if self._home is None:
            # imported when called: it loads polars, rdflib; tests replace this name
            from reasonlake.engine.store import catalog, server
            from reasonlake.engine.store.home import Home
            from reasonlake.engine.store.session import DeferredSession, active_session, get_spark, kafka_package

            spark, root = self._given, self._root
            remote = self._remote or settings.environment("SPARK_REMOTE")
            found = None  # the home's command server, when one runs and this process uses it
            if spark is None and remote is None and self.could_use_server():
                found = server.running(root)
                remote = found.url if found is not None else None
                if found is not None:  # its idle clock runs only while no command uses it
                    server.keep_using(root, found)
            if spark is None and remote is not None:
                # the home's own server not answering has stopped: a call says so in seconds
                spark = DeferredSession(lambda: server.fail_fast(get_spark(remote=remote)) if found is not None
                                        else get_spark(remote=remote), remote)
                spark = spark if self._defer else spark.started()
            if spark is None:
                packages = (kafka_package(),) if self._kafka else ()
                s3a = self._object_store()  # first: an s3a home asked for a local metastore makes no folder
                conf = catalog.metastore_conf(root) if self._metastore or catalog.local_metastore(root) else None
                if conf:
                    Path(root, catalog.METASTORE).mkdir(parents=True, exist_ok=True)
                if s3a is not None:
                    packages, conf = (*packages, *s3a[0]), {**(conf or {}), **s3a[1]}
                if self._defer and active_session() is None:  # started when first needed, if ever
                    spark = DeferredSession(lambda: get_spark(packages=packages, conf=conf), None)
                else:
                    spark = get_spark(packages=packages, conf=conf)
            self._home = Home(spark=spark, root=root, writer_wait=self._wait)
        return self._home

    def _object_store(self) -> tuple[tuple[str, ...], dict] | None:
        """(Maven packages, session settings) that an embedded session needs for an ``s3a://``
        home or input, None for none: a local home with local inputs downloads nothing new."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store import object_store

        places = [p for p in (self._root, *self._inputs) if object_store.is_object_store(p)]
        if not places:
            return None
        if self._metastore:
            # imported when called: it keeps the engine out of a command's start
            from reasonlake.errors import UsageError

            raise UsageError(f"--catalog spark_catalog keeps a Hive metastore in the home, a local folder; "
                             f"{self._root} is on object storage: name a cluster's catalog instead")
        found = object_store.settings(f"--home {self._root}" if places[0] == self._root else places[0])
        return object_store.packages(), object_store.spark_conf(found)

    def _writing(self, command: str, wait: float | None = None):
        """The home's writer claim for a call that writes, on a home on object storage (one
        writing process at a time there: ``engine.store.writer_claim``, decision 0038); a
        no-op elsewhere."""
        # imported when called: it loads polars, pyarrow
        from reasonlake.engine.store import writer_claim

        return writer_claim.writing(self._root, command, self._wait if wait is None else wait)

    @property
    def spark(self):
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store.session import started

        return started(self.home.spark)

    def clear_cache(self) -> None:
        """Drop the warm state this process keeps for the session (compiled views, facts in
        the driver, answers read from small tables): a long-running process gives the
        memory back; the next close reads what it needs again."""
        if self._home is not None:
            self._home.cache.clear()

    def release(self) -> None:
        """Hand back the writer leases this process holds (one writer per view): at the end
        of a job, so the next writer need not wait for them to run out (60 s after the last
        write, ``REASONLAKE_LEASE_SECONDS``)."""
        # imported when called: it loads polars
        from reasonlake.engine.store import lease

        lease.release_all()

    def start_server(self, *, port: int | None = None, idle: float | None = None, warm_up: bool = True):
        """Start the home's Spark Connect server (``engine.store.server``), or find it
        running: (the server, whether this call started it). Commands then connect to it.
        ``idle``: seconds without a command after which it stops itself (None: never)."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store import server

        return server.start(self._root, port=port, idle=idle, warm_up=warm_up)

    def could_use_server(self) -> bool:
        """Whether this process would run its Spark work on the home's command server if one
        ran: a home in a local folder, no Spark Connect address given, no session of its own."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store.locations import local_path
        from reasonlake.engine.store.session import active_session

        return (self._given is None and not (self._remote or settings.environment("SPARK_REMOTE")) and self._use_server
                and not self._kafka and local_path(self._root) is not None and active_session() is None)

    def stop_server(self):
        """Stop the home's server; the one stopped, or None when none ran."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store import server

        return server.stop(self._root)

    def server(self):
        """The home's running server, or None."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store import server

        return server.running(self._root)

    def server_unanswering(self):
        """The home's server process if it is alive but not answering, or None."""
        # imported when called: it keeps the engine out of a command's start
        from reasonlake.engine.store import server

        return server.unanswering(self._root)

    def init(self, *, catalog: str | None = None, schema: str = "reasonlake",
             allow_ontologies=None) -> list[str]:
        """Create or migrate the home; with ``catalog``, keep ``catalog.schema`` in the home
        and register the views (decoded, at their last published close) and the system
        tables there, kept current by every later close. ``allow_ontologies``: the folders
        (besides each view file's own) view files may take ontology files from; replaces
        the home's list."""
        # imported when called: it loads polars, rdflib
        from reasonlake.engine.store import catalog as names
        from reasonlake.engine.store import settings
        from reasonlake.engine.store.rspql_registry import registered as registered_rspql

        with self._writing("init"):
            applied = self.home.init()
            if allow_ontologies is not None:
                settings.allow_ontologies(self.home, allow_ontologies)
            if catalog is not None:
                names.configure(self.home, catalog, schema)
            else:  # a home registered before: every name re-pointed at its view's last close
                names.refresh_all(self.home)
            if names.target(self.home) is not None:
                # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
                from reasonlake.engine.jobs.rspql.advance import show_in_catalog

                for decl in registered_rspql(self.home).values():
                    show_in_catalog(self.home, decl)
        return applied

    def create_views(self, files, *, rebuild: bool = False) -> list:
        """``views.CreateReport`` per file: created, unchanged, or changed and rebuilt."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.views import check_views, create_view
        from reasonlake.engine.store import settings

        self.home.require_init()
        allowed = settings.ontology_dirs(self.home)
        decls = [load_view(f, allowed_dirs=allowed) for f in files]
        checked = check_views(self.home, decls, rebuild=rebuild)  # all checked before any is written
        with self._writing("view create"):
            return [create_view(self.home, c, now=now_ms()) for c in checked]

    def register(self, file, *, name: str | None = None, graphs: dict[str, str] | None = None):
        """Register the RSP-QL query in ``file`` (``declare.rspql_file``): its windows become
        views (shared with an equal one already there), its answers the table ``name`` (by
        default the output stream's local name) and, for a CONSTRUCT, the stream of that name.
        ``graphs``: a file per static graph IRI. One ``rspql.advance.Registered``."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash; it keeps the engine out of a command's start
        from reasonlake.declare.rspql_file import load_rspql
        from reasonlake.engine.jobs.rspql.advance import register
        from reasonlake.engine.store import settings

        self.home.require_init()
        decl = load_rspql(file, name=name, graph_files=graphs, allowed_dirs=settings.ontology_dirs(self.home))
        with self._writing(f"register {decl.name}"):
            return register(self.home, decl, now=now_ms())

    def rspql_queries(self) -> dict:
        """The home's RSP-QL queries by name (``declare.rspql_file.RspqlDecl``)."""
        # imported when called: it loads polars
        from reasonlake.engine.store.rspql_registry import registered

        self.home.require_init()
        return registered(self.home)

    def advance(self, name: str, until: int | str | None = None) -> list:
        """Bring the RSP-QL query ``name``, and every query it reads, up to ``until`` (default
        now): their windows' views slid, each evaluated at its pending evaluation times. One
        ``rspql.advance.Evaluated`` per evaluation, upstream queries first."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.rspql.advance import advance

        self.home.require_init()
        with self._writing(f"slide {name}"):
            return advance(self.home, name, now_ms() if until is None else parse_time(until, what="until"))

    def ingest(self, stream: str, files, *, ts: int | None = None, allow_duplicate: bool = False,
               only_new_items: bool = False, progress=None) -> list:
        """Files, folders, globs (plain paths, read here) and URIs of any file system the
        session reads (``s3a://``, ``abfss://``, ``dbfs:/``, ``file:``: read by the executors).
        A file holding items that a file of its name put in the stream before is refused,
        unless ``only_new_items`` (those are left out: a file whose quarantined rows were
        fixed adds only their items) or ``allow_duplicate`` (all of it goes in again).
        ``progress(done, total, what)``: called per file (``engine.process.progress``); one
        ``ingest.IngestReport`` per file."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.ingest.events import ingest_paths
        from reasonlake.engine.store.lease import ingest_wait_s

        self.home.require_init()
        with self._writing(f"ingest {stream}", max(self._wait, ingest_wait_s())):  # ingests queue (decision 0024)
            return ingest_paths(self.home, stream, [str(f) for f in files], ts=ts, allow_duplicate=allow_duplicate,
                                only_new=only_new_items, progress=progress)

    def ingest_frame(self, stream: str, frame, *, name: str = "dataframe",
                     allow_duplicate: bool = False):
        """A DataFrame with columns s, p, o (N-Triples terms) and ts (a timestamp, epoch
        milliseconds or a time string), validated and quarantined as JSONL rows are."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.ingest.events import ingest_frame
        from reasonlake.engine.store.lease import ingest_wait_s

        self.home.require_init()
        with self._writing(f"ingest {stream}", max(self._wait, ingest_wait_s())):
            return ingest_frame(self.home, stream, frame, name=name, allow_duplicate=allow_duplicate)

    def run(self, views, source, *, trigger: str = "available-now", lateness: int = 0,
            ts: int | None = None, progress=None):
        """Ingest the stream files arriving in ``source`` (a folder or glob, path or URI), or
        the messages of a Kafka topic (``runner.KafkaSource``; the Lakehouse made with
        ``kafka=True``), with Structured Streaming and slide ``views`` after each micro-batch:
        until the source is drained (``available-now``) or for ever (an interval such as
        ``'30 seconds'``). ``progress(batch_id, report, seconds)``: called after each
        micro-batch (default: a line on stderr when it is a terminal)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.runner import KafkaSource, run

        self.home.require_init()
        source = source if isinstance(source, KafkaSource) else str(source)
        with self._writing(f"run {' '.join(views)}"):
            return run(self.home, list(views), source, trigger=trigger, lateness=lateness, ts=ts, progress=progress)

    def slide(self, view: str, until: int | str | None = None, *, progress=None) -> list:
        """Process the view's closes up to ``until`` (epoch ms or an ISO 8601 time with a zone;
        default: now, which can be many closes for a stream from the past).
        ``progress(done, total, what)``: called per close (``engine.process.progress``); one
        ``state.Published`` per close."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.slide import slide as slide_view

        self.home.require_init()
        with self._writing(f"slide {view}"):
            return slide_view(self.home, view, now_ms() if until is None else parse_time(until, what="until"), progress)

    def rebuild(self, view: str, at: int | None = None, *, rewind: bool = False, progress=None):
        """Rematerialize a view from scratch at ``at`` (default: its last processed close); a
        close before that moves the view back to it, only with ``rewind``.
        ``progress(done, total, what)``: called per step (``engine.process.progress``)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.rebuild import rebuild as rebuild_view

        self.home.require_init()
        self.home.require_created(view)
        with self._writing(f"rebuild {view}"):
            return rebuild_view(self.home, view, at, now=now_ms(), rewind=rewind, progress=progress)

    def view(self, name: str, *, close: int | None = None, version: int | None = None):
        """The view's content as a DataFrame (subject, predicate, object, origin, expires, inferred, rule)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import read

        self.home.require_init()
        return read.decoded(self.home, name, close, version)

    def export(self, name: str, *, close: int | None = None, version: int | None = None):
        """The view's content as N-Triples lines (an iterator)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import read

        self.home.require_init()
        return read.ntriples(self.home, name, close, version)

    def query(self, name: str, text: str, *, close: int | None = None, version: int | None = None,
              max_rows: int | None = None, max_mb: float | None = None):
        """A SPARQL query (SELECT, ASK, CONSTRUCT) over the view's content at a close or
        published version, compiled onto the backend that reads the view (``query_read``: Polars
        in the driver, or Spark for a view the driver does not hold): a ``query.Answer``
        (``variables`` and ``frame`` of N-Triples text, ``boolean`` or ``triples``;
        ``to_spark(spark)``). A construct not supported yet is a ``SparqlError``; a query that
        would hold more than ``max_rows`` rows or ``max_mb`` MB at a step (default: the settings
        ``REASONLAKE_QUERY_MAX_ROWS``, ``REASONLAKE_QUERY_MAX_MB``) stops with a
        ``QueryBoundError`` (``query.bound``)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash; it keeps the engine out of a command's start
        from reasonlake.engine.reads import query_read
        from reasonlake.query import bound as query_bound
        from reasonlake.query.parse import algebra

        algebra(text)  # a query that does not parse fails before the view is read
        bound = query_bound.configured(max_rows, max_mb)  # a bad setting fails before the view is read too
        self.home.require_init()
        triples, at = query_read.triples(self.home, name, close, version)
        answer = triples.answer(text, bound)
        answer.close = at
        return answer

    def sql(self, query: str, *, only_named: bool = False):
        """A query over the views (each a table named after it) and the rl_* system tables;
        statements that write, or read paths outside the home, are refused (``sql_guard``).
        Every name is registered as a temporary view of the session, at the last published
        close (``sql_tables`` lists them); with ``only_named``, only the names the query
        mentions (a one-shot command: each name costs a Delta log read)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash; it keeps the engine out of a command's start
        from reasonlake.engine.reads import read
        from reasonlake.engine.sql import plan as sql_plan
        from reasonlake.engine.sql.guard import check_read_only
        from reasonlake.engine.store.session import DeferredSession

        check_read_only(query, self.home.root)
        if isinstance(self.home.spark, DeferredSession):  # needed for the query: started while the rest is read
            self.home.spark.start_in_background()
        self.home.require_init()
        self.sql_tables = read.register_sql_views(self.home, query if only_named else None)
        statement = sql_plan.inner_statement(query)
        sql_plan.check_plan(sql_plan.parsed_plan(self.spark, statement), self.home.root)
        return self.spark.sql(query)

    def query_rows(self, name: str) -> dict[str, dict[int, int]]:
        """Per registered query of the view (by name, in the view file's order), how many rows
        it streamed out at each close that has any (``<view>__<query>``)."""
        # imported when called: it loads polars
        from reasonlake.engine.store import query_tables

        self.home.require_init()
        return {q.name: query_tables.rows_per_close(self.home, name, q) for q in self.home.view(name).queries}

    def history(self, name: str) -> list:
        """One ``state.Published`` per processed close, oldest first."""
        # imported when called: it loads polars
        from reasonlake.engine.store import state

        self.home.require_init()
        self.home.view(name)
        return state.lineage(self.home, name)

    def validate(self, name: str, *, close: int | None = None, version: int | None = None,
                 docs: str | None = None):
        """Run the view's suites (built-in and its own) on a close, by default the last processed
        one (withheld or not); the results are recorded in rl_expectations and returned."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs import expectations
        from reasonlake.engine.reads import read
        from reasonlake.engine.store import state

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
        """The violations live at a close (default: the last processed one), decoded; None
        for a view whose profile has no violation rules (it has no violations table). The
        close is checked as ``export`` checks it, whatever the profile."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import read
        from reasonlake.engine.store import retention, state
        from reasonlake.engine.store import violations_table as violations

        self.home.require_init()
        self.home.view(name)
        history = state.lineage(self.home, name)
        if not history and close is None:
            return None, None
        record, at = read.pick(self.home, name, close, None)  # the errors export gives
        if record != history[-1]:
            retention.check_readable(self.home, name, record.version, at)
        if not violations.exists(self.home, name):
            return None, at
        version = record.violations_version
        if record == history[-1] and version is not None:
            version = retention.pinned(self.home, violations.path(self.home, name), version)
        return violations.decoded(self.home, name, at, version), at

    def rules(self, name: str):
        """The compiled program of a view (or of a view file): active rules, ignored axioms."""
        if is_view_file(name):
            return view_rules(name)
        self.home.require_init()
        return view_rules(self.home.view(name))

    def explain_removed(self, name: str, triple: str):
        """When and why repair removed a triple: one record per removed item."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import audit

        self.home.require_init()
        return audit.removals(self.home, name, triple)

    def explain_why(self, name: str, triple: str, *, close: int | None = None):
        """One derivation of a triple in the view at ``close`` (default: the last processed
        close), down to stream items: (root step, close, terms by id); ``derivation_steps.to_json``
        turns it into nested dicts."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import derivation
        from reasonlake.engine.reads.audit import parse_triple

        self.home.require_init()
        return derivation.why(self.home, name, parse_triple(triple, "--why"), close)

    def explain_presence(self, name: str, triple: str):
        """When a fact was last in the view, its origin and rule, and whether it expired."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import audit

        self.home.require_init()
        return audit.presence(self.home, name, triple)

    def changes(self, name: str, *, after=None, upto=None):
        """What entered (op ``+``) and left (``-``) the view at each close in ``(after, upto]``
        (ISO times or epoch ms; default: the closes since the processed close before the last):
        a DataFrame of close, op, subject, predicate, object, inferred. Renewals are no change."""
        # imported when called: it loads polars, pyarrow, rdflib
        from reasonlake.engine.reads.changes import changes

        self.home.require_init()
        return changes(self.home, name, None if after is None else parse_time(after, what="after"),
                       None if upto is None else parse_time(upto, what="upto"))

    def vacuum(self, names: list[str] | None = None, *, retain_ms: int | None = None) -> list:
        """Vacuum views (default: every view) to their retention (``retain``, or ``retain_ms``
        for this call): storage stops growing, and closes older than the retention can no
        longer be read. One ``retention.Vacuumed`` per view."""
        # imported when called: it loads polars, rdflib
        from reasonlake.engine.store import catalog, retention

        self.home.require_init()
        names = names or self.home.view_names()
        for name in names:
            self.home.view(name)  # an unknown name fails before anything is vacuumed
        done = []
        with self._writing("vacuum"):
            for name in names:
                done.append(retention.vacuum(self.home, name, retain_ms))
                catalog.after_vacuum(self.home, name)
        return done

    def readable_versions(self, name: str) -> set[int] | None:
        """The versions of a view's table still readable after a vacuum (None: all of them)."""
        # imported when called: it loads polars
        from reasonlake.engine.store import retention

        return retention.readable_versions(self.home, name)

    def repair(self, name: str, *, progress=None):
        """Re-check the whole current window and repair it (idempotent); (record|None, removals).
        ``progress(done, total, what)``: called per step (``engine.process.progress``)."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.jobs.repair_job import repair_job

        self.home.require_init()
        self.home.require_created(name)
        with self._writing(f"repair {name}"):
            return repair_job(self.home, name, progress)

    # -- for the command line: plain rows, no Spark types ---------------------------------
    def change_rows(self, name: str, *, after=None, upto=None):
        """``changes`` as tuples (close ms, op, subject, predicate, object, inferred), in order."""
        # imported when called: it loads polars, pyarrow, rdflib
        from reasonlake.engine.reads.changes import rows

        self.home.require_init()
        return rows(self.home, name, None if after is None else parse_time(after, what="after"),
                    None if upto is None else parse_time(upto, what="upto"))

    def sql_rows(self, query: str) -> tuple[list[str], list]:
        """``sql`` run: its column names and rows (timestamps as ISO strings in UTC); a
        mistake in the query is one ``SqlError`` naming the tables there are."""
        # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
        from reasonlake.engine.reads import read
        from reasonlake.engine.sql import rows as sql_rows

        # a query that names a table there is not: list every name it could have used
        return sql_rows.collect(lambda: self.sql(query, only_named=True), lambda: read.register_sql_views(self.home))

    def violation_rows(self, name: str, *, close: int | None = None) -> tuple[list, int | None]:
        """``violations`` collected: (rows, close)."""
        rows, at = self.violations(name, close=close)
        return (rows.collect() if rows is not None else []), at

    def streams_read(self) -> list[str]:
        """The streams the home's views read."""
        self.home.require_init()
        return self.home.streams_read()


def release_leases() -> None:
    """Hand back the writer leases this process took (looked up only if a command wrote a
    view: a command that never started Spark does not start it here)."""
    lease = sys.modules.get("reasonlake.engine.store.lease")
    if lease is not None:
        lease.release_all()


def is_view_file(name: str) -> bool:
    return name.endswith((".yaml", ".yml")) and Path(name).is_file()


def view_rules(view) -> tuple:
    """A view (its declaration, or the file that declares it) and its compiled program;
    no Spark needed."""
    # imported when called: it loads rdflib; it keeps the engine out of a command's start
    from reasonlake.compile.program import compile_program
    from reasonlake.compile.tbox import load_tbox

    decl = load_view(view) if isinstance(view, (str, Path)) else view
    return decl, compile_program(load_tbox(decl.ontology), decl.profile, decl.unique_names)


def check_ingest(stream: str, paths: list[str], ts: int | None, *, allow_duplicate: bool = False,
                 only_new_items: bool = False) -> None:
    """Every check of an ingest's arguments that needs no Spark: the flags, the stream name,
    and each local file's name and readability (URIs are read by the executors)."""
    # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
    from reasonlake.engine.ingest.events import check_flags, check_stream_name
    from reasonlake.engine.store.inputs import is_uri, local_files
    from reasonlake.parse.formats import check_readable

    check_flags(allow_duplicate, only_new_items)
    check_stream_name(stream)
    for arg in paths:
        if not is_uri(arg):
            for found in local_files(arg):
                check_readable(found.name, ts)


def is_uri(path: str) -> bool:
    # imported when called: it loads polars
    from reasonlake.engine.store.inputs import is_uri as uri

    return uri(path)


def kafka_source(bootstrap: str, topic: str, starting_offsets: str, options: tuple):
    """A Kafka topic for ``Lakehouse.run`` (the Lakehouse made with ``kafka=True``)."""
    # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
    from reasonlake.engine.jobs.runner import KafkaSource

    return KafkaSource(bootstrap, topic, starting_offsets, options)


def default_retain_ms() -> int:
    # imported when called: it loads polars
    from reasonlake.engine.store.retention import DEFAULT_RETAIN_MS

    return DEFAULT_RETAIN_MS


def parse_triple(text: str, what: str = "--removed") -> tuple[str, str, str]:
    """An N-Triples triple (``<s> <p> <o>``), checked before Spark starts."""
    # imported when called: it loads pyspark (the JVM), polars, pyarrow, rdflib, xxhash
    from reasonlake.engine.reads.audit import parse_triple as parse

    return parse(text, what)


def derivation_tree(root, terms) -> dict:
    """``Lakehouse.explain_why``'s derivation as nested dicts."""
    # imported when called: it keeps the engine out of a command's start
    from reasonlake.engine.reads.derivation_steps import to_json

    return to_json(root, terms)


def repair_patterns(decl, program) -> dict[str, int]:
    """How many conflict patterns each negative rule of a repair view became."""
    # imported when called: it loads rdflib
    from reasonlake.repair.normal_form import for_view

    return dict(sorted(for_view(decl, program).sources.items()))


def rule_shape(rule: str) -> str:
    # imported when called: it keeps the engine out of a command's start
    from reasonlake.compile.rules import CATALOGUE

    return CATALOGUE[rule].shape
