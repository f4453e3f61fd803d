"""Spark's standalone master and workers, started from the pyspark package's own scripts
(``bin/spark-class``): for the tests and benches that need a real cluster manager."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def daemon_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env.update(SPARK_HOME=str(spark_home()), PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               SPARK_LOG_DIR=str(folder / "logs"), SPARK_WORKER_DIR=str(folder / "work"),
               # the daemons need little heap: the executors have their own JVMs
               SPARK_DAEMON_MEMORY="512m")
    return env


def master_state(ui: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as answer:
        return json.load(answer)


@contextmanager
def standalone_master(folder: Path, *, workers: int = 2, worker_memory: str = "1g"):
    """(the master's spark:// URL, its web UI port, the environment): a master and
    ``workers`` workers of one core each, their logs in ``folder``, stopped (their process
    groups) at the end. RuntimeError, with the logs, if they do not come up in 180 s."""
    folder.mkdir(parents=True, exist_ok=True)
    env = daemon_env(folder)
    spark_class = str(spark_home() / "bin" / "spark-class")
    port, ui = free_port(), free_port()
    url = f"spark://127.0.0.1:{port}"
    daemons = [subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
         "--webui-port", str(ui)],
        env=env, stdout=open(folder / "master.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)]
    logs = ["master.log", *(f"worker{n}.log" for n in range(1, workers + 1))]
    try:
        for n in range(1, workers + 1):
            daemons.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                 "--memory", worker_memory, "--webui-port", "0", "--work-dir", str(folder / f"worker{n}"), url],
                env=env, stdout=open(folder / f"worker{n}.log", "wb"), stderr=subprocess.STDOUT,
                start_new_session=True))
        deadline = time.monotonic() + 180
        while True:
            try:
                alive = [w for w in master_state(ui)["workers"] if w["state"] == "ALIVE"]
                if len(alive) == workers:
                    break
            except OSError:
                pass
            dead = [d for d in daemons if d.poll() is not None]
            if dead or time.monotonic() > deadline:
                found = "\n".join((folder / f).read_text()[-1500:] for f in logs if (folder / f).exists())
                raise RuntimeError(f"the standalone master and {workers} workers did not come up:\n{found}")
            time.sleep(1)
        yield url, ui, env
    finally:
        for daemon in daemons:
            try:
                os.killpg(daemon.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for daemon in daemons:
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(daemon.pid, signal.SIGKILL)
