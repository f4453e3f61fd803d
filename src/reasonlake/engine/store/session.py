"""The Spark session: reuse the active one (a cluster, Databricks), else start an embedded one.

The embedded session is local Spark with Delta; delta-spark resolves its jars from Maven
Central on the first run and Ivy caches them after that. pyspark and delta-spark are the
``local`` extra: a session handed over (the active one, or the one of a process spark-submit
started) takes its Spark and Delta from the cluster, and nothing here imports ``delta`` for it.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from reasonlake import settings
from reasonlake.engine.store.local_fs import spark_conf
from reasonlake.engine.store.object_store import EXCLUDED
from reasonlake.errors import EnvironmentSetupError

_EMBEDDED_CONF = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    # Small data per slide: few shuffle partitions, AQE on and honouring its target size.
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.parallelismFirst": "false",
    "spark.databricks.delta.snapshotPartitions": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.databricks.delta.schema.autoMerge.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # A process that lives for hours, or opens many homes, keeps a bounded number of Delta
    # table logs (each holds its snapshot's query plans, tens of MB of plan trees for 100
    # tables) and of finished jobs and queries (there is no UI to show them).
    "spark.databricks.delta.delta.log.cacheSize": "100",
    "spark.sql.ui.retainedExecutions": "100",
    "spark.ui.retainedJobs": "200",
    "spark.ui.retainedStages": "200",
    # Spark sizes its memory pages from the heap (64 MB with 4 GB), and every sort or hash
    # aggregation takes at least one page, even for ten rows: a close's small sorts then held
    # up to 1.5 GB of barely used pages. A larger record still gets a page of its own size.
    "spark.buffer.pageSize": "4m",
}


@contextmanager
def settings_for_a_while(spark, settings: dict[str, str]):
    """The session's ``settings`` for the block's time, then what they were before. They are
    the session's, so a job another thread runs meanwhile runs with them too: only settings
    that change how a job runs, never what it gives, belong here."""
    before = {key: spark.conf.get(key, None) for key in settings}
    try:
        for key, value in settings.items():
            spark.conf.set(key, value)
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


# Spark's Kafka source: a Maven package of the same Spark version, added to the embedded
# session only when a Kafka source is asked for (its resolution costs a first run a download).
def kafka_package() -> str:
    # imported when called: it loads pyspark (the JVM)
    import pyspark

    return f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}"


_SHIPPED_WITH_PYSPARK = "org.apache.hadoop:hadoop-client-runtime,org.apache.hadoop:hadoop-client-api"


def _embedded_conf(master: str, packages: tuple[str, ...], conf: dict | None) -> dict:
    """The embedded session's settings: reasonlake's, the caller's ``conf`` over them."""
    made = {**_EMBEDDED_CONF, **_loopback(master), **spark_conf(master, _cache_folder()),
            # reasonlake names tables by path: no spark-warehouse/ folder in the working directory
            "spark.sql.warehouse.dir": str(_cache_folder() / "spark-warehouse"), **(conf or {}),
            "spark.driver.memory": settings.text("REASONLAKE_DRIVER_MEMORY")}
    if packages:
        # pyspark ships the Hadoop client the packages ask for: no second copy to download;
        # nor the AWS SDK's 640 MB bundle hadoop-aws asks for (object_store names its modules)
        made["spark.jars.excludes"] = ",".join((_SHIPPED_WITH_PYSPARK, *EXCLUDED))
    return made


def get_spark(master: str | None = None, *, remote: str | None = None, packages: tuple[str, ...] = (),
              conf: dict | None = None):
    """The active session if there is one; a Spark Connect session to ``remote`` (or
    ``$SPARK_REMOTE``), an ``sc://HOST:PORT`` address; under spark-submit, the submit's
    session (``_submitted``); otherwise an embedded local session with Delta, the Maven
    ``packages`` (such as ``kafka_package()``) and the settings ``conf`` (such as a home's
    metastore)."""
    remote = remote or settings.environment("SPARK_REMOTE")
    if remote:
        return connect(remote)
    try:
        # imported when called: it loads pyspark (the JVM)
        from pyspark.sql import SparkSession
    except ModuleNotFoundError as exc:  # a base install (no `local` extra) outside a cluster
        raise EnvironmentSetupError(_needs_local(exc)) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if settings.environment("PYSPARK_GATEWAY_PORT"):  # spark-submit started this process, its JVM waits
        return _submitted(conf)
    try:
        # imported when called: it loads delta
        from delta import configure_spark_with_delta_pip
    except ModuleNotFoundError as exc:
        raise EnvironmentSetupError(_needs_local(exc)) from None
    if not (shutil.which("java") or settings.environment("JAVA_HOME")):
        raise EnvironmentSetupError(
            "Java was not found: reasonlake runs Spark, which needs a Java 17 runtime "
            "(install openjdk-17-jre or set JAVA_HOME)"
        )

    master = master or settings.text("REASONLAKE_SPARK_MASTER")
    # Python tasks (the executors' parse of ingested files) run this interpreter, whose
    # environment has reasonlake; Spark's default is whatever `python3` is on the PATH.
    settings.environment_default("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("reasonlake").master(master)
    for key, value in _embedded_conf(master, packages, conf).items():
        builder = builder.config(key, value)
    log = _jvm_log_path()
    try:
        with _jvm_output_to(log):
            spark = configure_spark_with_delta_pip(builder, extra_packages=list(packages)).getOrCreate()
    except Exception as exc:
        text = str(exc)
        if "JAVA_GATEWAY_EXITED" in text or "Java gateway" in text:
            raise EnvironmentSetupError(_launch_failure(log)) from None
        raise
    spark.sparkContext.setLogLevel(settings.text("REASONLAKE_SPARK_LOG_LEVEL"))
    _jars_off_the_import_path()
    return spark


def _needs_local(missing: ModuleNotFoundError) -> str:
    return (f"an embedded Spark session needs pyspark and delta-spark ({missing.name} is missing): "
            "pip install 'reasonlake[local]' (the README's set-up installs them)")


_DELTA_EXTENSION = _EMBEDDED_CONF["spark.sql.extensions"]


def _submitted(conf: dict | None):
    """The session of a Python process spark-submit started: its master, jars and settings are
    the submit's (on a cluster, its Spark and Delta: no Maven, no delta-spark package here).
    Delta's SQL extension joins the submit's, and its catalog is set where the submit sets
    none, so that ``--packages io.delta:...`` alone is enough; ``conf`` (a home's metastore)
    is added. Nothing of the embedded session's: a local master would override the submit's."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    # joins the JVM that spark-submit started (no context yet), so SparkConf() reads its settings
    SparkContext._ensure_initialized()
    submitted = SparkConf()
    extensions = [name.strip() for name in submitted.get("spark.sql.extensions", "").split(",") if name.strip()]
    if _DELTA_EXTENSION not in extensions:
        extensions.append(_DELTA_EXTENSION)
    settings = {"spark.sql.extensions": ",".join(extensions)}
    if not submitted.contains("spark.sql.catalog.spark_catalog"):
        settings["spark.sql.catalog.spark_catalog"] = _EMBEDDED_CONF["spark.sql.catalog.spark_catalog"]
    builder = SparkSession.builder
    for key, value in {**settings, **(conf or {})}.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _loopback(master: str) -> dict:
    """The driver's ports (its RPC endpoint, the block manager) on the loopback address for a
    session on this machine alone (`local`, `local-cluster`): Spark would otherwise listen on
    the machine's network address, and nothing off the machine has a reason to reach it.
    ``SPARK_LOCAL_IP``, or the same settings in ``conf``, choose otherwise; a cluster's driver
    (`spark://`, `yarn`, `k8s://`) keeps Spark's defaults, its executors must reach it."""
    if not master.startswith("local") or settings.environment("SPARK_LOCAL_IP"):
        return {}
    return {"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"}


def _jars_off_the_import_path() -> None:
    """PySpark puts each jar of ``--packages`` on ``sys.path`` (a jar may carry Python), ahead
    of the installed packages: every later import that misses then opens all of them, 1.3 s a
    command for Delta's 33 jars. Their Python is the installed delta-spark's, so they go.
    A new list, not the old one cut down: an import on another thread may be walking it."""
    sys.path = [p for p in sys.path if not (p.endswith(".jar") and "userFiles-" in p)]


class DeferredSession:
    """The session a command would start, started on its first use: a command answered from
    files this process reads itself (``history`` or ``export`` of a local home) neither
    starts a JVM nor loads pyspark's Connect client. What the engine asks before any read,
    whether the session will be Spark Connect and to which host (``remote``), is known
    without starting it; anything else starts it and goes to it."""
    def __init__(self, start, remote: str | None):
        self._start, self.remote, self._session = start, remote, None
        self._lock, self._failed = threading.Lock(), None
        self._settings: dict[str, str | None] = {}  # set before the start: applied at it

    def started(self):
        with self._lock:  # one start, whichever thread asks first
            if self._session is None and self._failed is None:
                try:
                    session = self._start()
                    for key, value in self._settings.items():
                        _put(session, key, value)
                    self._session = session
                except BaseException as exc:
                    self._failed = exc
            if self._failed is not None:
                raise self._failed
            return self._session

    def start_in_background(self) -> None:
        """Start it now on a thread (a command that will need it does its own work in the
        meantime); the first call that needs it waits for it, and gets its error if any."""
        threading.Thread(target=self._start_quietly, daemon=True, name="reasonlake-session-start").start()

    def _start_quietly(self) -> None:
        try:
            self.started()
        except BaseException:  # kept: raised to the caller that needs the session
            pass

    def setting(self, key: str, default: str | None = None) -> str | None:
        """A setting, without starting the session for it: before the start, the one set here."""
        with self._lock:
            if self._session is None:
                kept = self._settings.get(key)  # None: never set here, or unset
                return default if kept is None else kept
        return self._session.conf.get(key, default)

    def set_setting(self, key: str, value: str | None) -> None:
        """Set a setting (None: unset it); before the start, kept and applied at it."""
        with self._lock:
            if self._session is None:
                self._settings[key] = value
                return
        _put(self._session, key, value)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_start", "_session", "remote", "_lock", "_failed", "_settings"):
            raise AttributeError(name)
        return getattr(self.started(), name)


def setting(spark, key: str, default: str | None = None) -> str | None:
    """A session setting; a ``DeferredSession`` is not started for it."""
    return spark.setting(key, default) if isinstance(spark, DeferredSession) else spark.conf.get(key, default)


def set_setting(spark, key: str, value: str | None) -> None:
    """Set a session setting (None: unset it); a ``DeferredSession`` not started yet keeps it
    and applies it at its start (a command's commits carry its mark, ``session_marks``,
    whether or not it starts Spark)."""
    if isinstance(spark, DeferredSession):
        spark.set_setting(key, value)
    else:
        _put(spark, key, value)


def _put(session, key: str, value: str | None) -> None:
    if value is None:
        session.conf.unset(key)
    else:
        session.conf.set(key, value)


def started(spark):
    """The session itself: ``spark`` or, for a ``DeferredSession``, the one it starts."""
    return spark.started() if isinstance(spark, DeferredSession) else spark


def active_session():
    """The process's active classic session, if any (a notebook's, a job's on a cluster)."""
    try:
        # imported when called: it loads pyspark (the JVM)
        from pyspark.sql import SparkSession
    except ModuleNotFoundError:  # a base install without the `local` extra: no session either
        return None
    return SparkSession.getActiveSession()


def connect(remote: str):
    """A Spark Connect session to ``remote`` (``sc://HOST:PORT``), checked to answer."""
    try:
        # imported when called: it loads pyspark (the JVM)
        import pyspark.sql.connect.session  # noqa: F401 (the client libraries are there)
    except ImportError as exc:
        raise EnvironmentSetupError(
            f"a Spark Connect session needs the client libraries ({exc.name} is missing): "
            "pip install 'reasonlake[connect]' (the README's set-up installs them)") from None
    if not remote.startswith("sc://"):
        raise EnvironmentSetupError(f"--remote {remote}: a Spark Connect address is sc://HOST:PORT")
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql import SparkSession

    # pyspark's own builder: it also switches pyspark.sql.functions to their Connect forms
    spark = SparkSession.builder.remote(remote).getOrCreate()
    try:
        _ = spark.version  # the first call reaches the server
    except Exception as exc:
        raise EnvironmentSetupError(
            f"could not reach the Spark Connect server at {remote}: {str(exc).strip().splitlines()[0]}") from None
    return spark


def _cache_folder():

    return Path.home() / ".cache" / "reasonlake"


def _jvm_log_path() -> str:
    folder = _cache_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"spark-{os.getpid()}.log")


class _jvm_output_to:
    """Send what the JVM prints (Ivy's jar resolution, Spark's warnings) to a log file.

    The JVM inherits the process's stdout and stderr when it starts, so both are pointed at
    the log for the launch only; Python's own output is restored right after."""
    def __init__(self, path: str):
        self.path = path

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = []
        try:
            fds = (sys.__stdout__.fileno(), sys.__stderr__.fileno())
        except (AttributeError, ValueError, OSError):
            return self
        self.log = open(self.path, "ab")
        for fd in fds:
            self.saved.append((fd, os.dup(fd)))
            os.dup2(self.log.fileno(), fd)
        return self

    def __exit__(self, *exc):
        for fd, copy in self.saved:
            os.dup2(copy, fd)
            os.close(copy)
        if self.saved:
            self.log.close()
        return False


def _launch_failure(log: str) -> str:
    try:
        with open(log, errors="replace") as handle:
            text = handle.read()
    except OSError:
        text = ""
    if "UNRESOLVED DEPENDENCIES" in text or "unresolved dependency" in text:
        return (
            "could not fetch the Delta Lake (or Kafka connector, or S3A) jars from Maven Central (they are cached under "
            f"~/.ivy2* after the first successful run); check network access. Details: {log}"
        )
    if "UnsupportedClassVersionError" in text:
        return f"Java could not start Spark: install a Java 17 runtime. Details: {log}"
    return (
        "could not start the embedded Spark session: check that Java 17 is installed "
        f"(`java -version`) and that Maven Central is reachable for the Delta jars. Details: {log}"
    )
