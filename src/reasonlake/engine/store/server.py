"""A Spark Connect server for one home, so that commands answer in seconds.

Every command run from a fresh process pays for a JVM and a Spark session (10-15 s on two
cores) before it reads a table, and then reads cold. ``reasonlake server start`` launches
the embedded session once, in a process of its own, with Spark's Connect plugin: a command
that finds it running connects to it (a Spark Connect client: 0.5 s) and reads through its
warm JVM. The server listens on the loopback address only (Spark Connect has no
authentication) and keeps its port and process id in the home (``SERVER_FILE``).

Only a home on a local path has one: the file must be where the command can read it
before Spark starts.
"""
from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from reasonlake import settings
from reasonlake.engine.store.locations import local_path
from reasonlake.errors import EnvironmentSetupError

SERVER_FILE = "_server.json"
LOG_FILE = "_server.log"
USED_FILE = "_server.used"  # its time: a command's last use of the server (the idle clock)
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Server:
    pid: int
    port: int
    started: float  # seconds since the epoch
    idle: float = 0  # seconds without a command after which it stops itself (0: never)

    @property
    def url(self) -> str:
        return f"sc://{LOOPBACK}:{self.port}"


def _folder(root: str) -> Path | None:
    return local_path(root)


def recorded(root: str) -> Server | None:
    """The server the home's file names, whether or not it still runs."""
    folder = _folder(root)
    if folder is None:
        return None
    try:
        return Server(**json.loads((folder / SERVER_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def running(root: str) -> Server | None:
    """The home's server if one is running and answering, else None (a stale file is removed)."""
    server = recorded(root)
    if server is None:
        return None
    if _alive(server.pid) and _listening(server.port):
        return server
    if not _alive(server.pid):
        (_folder(root) / SERVER_FILE).unlink(missing_ok=True)
    return None


def unanswering(root: str) -> Server | None:
    """The home's server process if it is alive but does not answer on its port (starting,
    or its JVM stuck): what `server status` reports and `server stop` ends."""
    server = recorded(root)
    if server is None or not _alive(server.pid) or _listening(server.port):
        return None
    return server


def _alive(pid: int) -> bool:
    try:  # a server this process started and that has exited: reaped here, else it lingers
        if os.waitpid(pid, os.WNOHANG)[0]:
            return False
    except ChildProcessError:  # not our child: its own parent reaps it
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((LOOPBACK, port)) == 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def start(root: str, *, port: int | None = None, timeout: float = 300, idle: float | None = None,
          warm_up: bool = True) -> tuple[Server, bool]:
    """Start the home's server, or find it running: (the server, whether this call started it).
    ``idle``: seconds without a command after which it stops itself (None: until stopped).
    ``warm_up``: a client asks it a first question before this returns (``_warm_up``); a
    command that starts the server for itself skips that, being its first client."""
    folder = _folder(root)
    if folder is None:
        raise EnvironmentSetupError(
            f"the home {root} is not a local folder: a command server runs beside a local home only; "
            "on a cluster or Databricks, pass the cluster's Spark Connect address with --remote")
    found = running(root)
    if found is not None:
        return found, False
    folder.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    if _listening(port):
        raise EnvironmentSetupError(f"port {port} on {LOOPBACK} is taken; choose another with --port")
    log = open(folder / LOG_FILE, "ab")
    # the server is a classic session: not a client of one, whatever this process connected to
    # (pyspark marks a process that made a Connect session in its environment)
    env = settings.environment_without("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
    process = subprocess.Popen(
        [sys.executable, "-m", "reasonlake.engine.store.server", str(root), str(port), str(idle or 0)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, env=env)
    deadline = time.monotonic() + timeout
    # the server names itself in the home once its session is up (the Connect plugin listens
    # while the session is still being made: a JVM dying then must leave no file behind)
    while not (_announced(root, process.pid) and _listening(port)):
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                process.kill()
            raise EnvironmentSetupError(
                f"the command server did not start (see {folder / LOG_FILE}); check that Java 17 is "
                "installed and that Maven Central is reachable for the Delta jars")
        time.sleep(0.25)
    server = recorded(root)
    if warm_up:
        _warm_up_apart(server, root, env)
    return server, True


def _announced(root: str, pid: int) -> bool:
    server = recorded(root)
    return server is not None and server.pid == pid


def stop(root: str, *, timeout: float = 60) -> Server | None:
    """Stop the home's server, answering or not; the one stopped, or None when none was running."""
    server = running(root) or unanswering(root)
    folder = _folder(root)
    if server is None:
        return None
    os.kill(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(server.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _alive(server.pid):
        os.kill(server.pid, signal.SIGKILL)
    (folder / SERVER_FILE).unlink(missing_ok=True)
    return server


def used(root: str) -> None:
    """Mark the home's server as used now (a command connected to it, or ended over it): it
    stops itself only ``idle`` seconds after the last mark."""
    folder = _folder(root)
    if folder is not None:
        try:
            (folder / USED_FILE).touch()
        except OSError:  # a home that vanished: nothing left to keep the server for
            pass


def keep_using(root: str, server: Server) -> None:
    """Mark the server used now, again while this process runs (a daemon thread, at a third
    of its idle limit: a command working longer than that between two jobs is still use),
    and when the process ends."""
    used(root)
    atexit.register(used, root)
    if server.idle:
        def mark() -> None:
            while True:
                time.sleep(server.idle / 3)
                used(root)

        threading.Thread(target=mark, name="reasonlake-server-use", daemon=True).start()


def fail_fast(spark):
    """``spark``, a client of the home's own server, retrying a call for about three seconds
    instead of pyspark's ten minutes: on the loopback address a server that does not answer
    for that long has stopped (idle, `server stop`, killed), and the command should say so."""
    # imported when called: it loads pyspark (the JVM)
    from pyspark.sql.connect.client.retries import DefaultPolicy

    # the command says in its own line that the server stopped
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")

    spark.client.set_retry_policies([DefaultPolicy(max_retries=6, backoff_multiplier=2.0, initial_backoff=100,
                                                   max_backoff=1000, jitter=0)])
    return spark


def _idle_for(root: str, spark, since: float) -> float:
    """Seconds since the server last served: its last use marked in the home, or a job it
    still runs (a long query over it is use, whatever the marks say)."""
    if spark.sparkContext.statusTracker().getActiveJobsIds():
        return 0.0
    try:
        since = max(since, (_folder(root) / USED_FILE).stat().st_mtime)
    except OSError:
        pass
    return time.time() - since


def _serve(root: str, port: int, idle: float = 0) -> None:
    """The server process: the embedded session with Spark's Connect plugin, until stopped
    (or, with ``idle``, until that many seconds pass without a command)."""
    # imported when called: it loads polars, rdflib, yaml; tests replace this name
    from reasonlake.engine.store import catalog
    from reasonlake.engine.store.session import get_spark

    conf = {"spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
            "spark.connect.grpc.binding.address": LOOPBACK,
            "spark.connect.grpc.binding.port": str(port),
            # the driver's own ports (block manager, RPC) on the loopback address as well
            "spark.driver.bindAddress": LOOPBACK, "spark.driver.host": LOOPBACK}
    if catalog.local_metastore(root):
        conf.update(catalog.metastore_conf(root))
    try:
        spark = get_spark(conf=conf)
    except BaseException as exc:  # the JVM died or refused while starting: never announced
        print(f"the server's session did not start: {exc}", file=sys.stderr)
        os._exit(1)
    started = time.time()
    _announce(root, Server(pid=os.getpid(), port=port, started=started, idle=idle))
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    checked = time.monotonic()
    while not stopping:
        if idle and time.monotonic() - checked > min(idle / 10, 30):
            checked = time.monotonic()
            if _idle_for(root, spark, started) > idle:
                print(f"idle for {idle:.0f} s: the server stops", file=sys.stderr)
                _forget(root)
                break
        code = _jvm_exited(spark)
        if code is not None:
            # nothing serves the port any more: the home must not name this process as its
            # server, and a command must start Spark of its own (or a new server)
            print(f"the server's JVM exited (code {code}); the server stops", file=sys.stderr)
            _forget(root)
            os._exit(1)
        time.sleep(0.5)
    spark.stop()


def _jvm_exited(spark) -> int | None:
    """The JVM's exit code once it has exited (the wrapper launched it), else None."""
    process = getattr(spark.sparkContext._gateway, "proc", None)
    return None if process is None else process.poll()


def _announce(root: str, server: Server) -> None:
    """The home names this process as its server: written whole, then renamed into place, so
    a reader never sees half a file."""
    folder = _folder(root)
    part = folder / f"{SERVER_FILE}.{server.pid}"
    part.write_text(json.dumps(asdict(server)))
    part.replace(folder / SERVER_FILE)


def _forget(root: str) -> None:
    server = recorded(root)
    if server is not None and server.pid == os.getpid():
        (_folder(root) / SERVER_FILE).unlink(missing_ok=True)


def _warm_up_apart(server: Server, root: str, env: dict) -> None:
    """``_warm_up`` in a process of its own: a Connect client made here would leave this
    process in pyspark's Connect mode for good (it marks the environment, and its default
    session stays the client's), so that a later classic session, or a command this process
    starts, would reach for a server that may be gone."""
    try:
        subprocess.run([sys.executable, "-m", "reasonlake.engine.store.server", "--warm-up", root, server.url],
                       stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=300)
    except subprocess.TimeoutExpired:  # warm enough: the first command pays the rest
        pass


def _warm_up(url: str, root: str) -> None:
    """What a reading command asks first, asked once as a client before the server is
    announced: a fresh server takes seconds over its first client session, local relation,
    aggregate and Delta read (its JIT, its code generator), and the first command would pay
    them. A failure here is the first command's to report."""
    # imported when called: tests replace this name
    from reasonlake.engine.store.session import get_spark

    try:
        spark = get_spark(remote=url)
        spark.createDataFrame([("a", 1), ("b", 2)], "x STRING, n BIGINT").createOrReplaceTempView("reasonlake_warm_up")
        spark.sql("SELECT x, count(*) AS n FROM reasonlake_warm_up WHERE n > 0 GROUP BY x ORDER BY x").collect()
        spark.read.format("delta").load(f"{root}/_migrations").count()
        spark.catalog.dropTempView("reasonlake_warm_up")
    except Exception as exc:  # a home not made yet (`init` comes later): warm enough
        print(f"warm-up: {str(exc).splitlines()[0] if str(exc) else exc}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "--warm-up":
        _warm_up(sys.argv[3], sys.argv[2])
    else:
        _serve(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0)
