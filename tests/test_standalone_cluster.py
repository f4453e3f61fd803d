"""The jobs on a real cluster manager: Spark's standalone master and two workers, started
from the pyspark package (``bin/spark-class``), each job a ``spark-submit`` of ``jobs/*.py``
with the Delta package against the ``spark://`` URL (executors in the workers' JVMs), as a
team's scheduled jobs run on their own cluster. The views it leaves equal an embedded run of
the same commands at every close, and the master lists every job as an application that
ran on its workers."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO

VIEW = REPO / "views" / "active_users.yaml"
STREAM = REPO / "examples" / "streams" / "social.jsonl"
UNTIL = ("2026-11-22T10:05:00Z", "2026-11-22T10:12:00Z")  # two slides: the second expires and renews


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _env(tmp_path: Path) -> dict[str, str]:
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env.update(SPARK_HOME=str(_spark_home()), PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               SPARK_LOG_DIR=str(tmp_path / "logs"), SPARK_WORKER_DIR=str(tmp_path / "work"),
               # the daemons need little heap: the executors have their own JVMs
               SPARK_DAEMON_MEMORY="512m")
    return env


def _master_state(ui: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as answer:
        return json.load(answer)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    """(the master's spark:// URL, its web UI port, the environment): a master and two
    workers of one core each, stopped (their process groups) at the end."""
    tmp = tmp_path_factory.mktemp("standalone")
    env = _env(tmp)
    spark_class = str(_spark_home() / "bin" / "spark-class")
    port, ui = _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    daemons = [subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
         "--webui-port", str(ui)],
        env=env, stdout=open(tmp / "master.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        for n in (1, 2):
            daemons.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                 "--memory", "1g", "--webui-port", "0", "--work-dir", str(tmp / f"worker{n}"), url],
                env=env, stdout=open(tmp / f"worker{n}.log", "wb"), stderr=subprocess.STDOUT,
                start_new_session=True))
        deadline = time.monotonic() + 180
        while True:
            try:
                alive = [w for w in _master_state(ui)["workers"] if w["state"] == "ALIVE"]
                if len(alive) == 2:
                    break
            except OSError:
                pass
            dead = [d for d in daemons if d.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = "\n".join((tmp / f).read_text()[-1500:] for f in ("master.log", "worker1.log", "worker2.log")
                                 if (tmp / f).exists())
                pytest.fail(f"the standalone master and two workers did not come up:\n{logs}")
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


def _submit(url: str, env: dict, cwd: Path, script: str, *args: str) -> str:
    from importlib.metadata import version

    run = subprocess.run(
        [str(_spark_home() / "bin" / "spark-submit"), "--master", url, "--deploy-mode", "client",
         "--packages", f"io.delta:delta-spark_4.2_2.13:{version('delta-spark')}",
         "--driver-memory", "1g", "--executor-memory", "768m", "--total-executor-cores", "2",
         "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.databricks.delta.snapshotPartitions=2",
         "--conf", "spark.ui.enabled=false",
         str(REPO / "jobs" / script), *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"{script} {' '.join(args)}:\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}"
    return run.stdout


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(9)
def test_jobs_submitted_to_a_standalone_master_equal_the_embedded_run(standalone, spark, tmp_path):
    from reasonlake.api import Lakehouse

    url, ui, env = standalone
    home = str(tmp_path / "cluster-lake")
    jobs = [("init.py", "--home", home), ("view_create.py", "--home", home, str(VIEW)),
            ("ingest.py", "--home", home, "social", str(STREAM)),
            *[("slide.py", "--home", home, "active_users", "--until", until) for until in UNTIL]]
    for script, *args in jobs:
        _submit(url, env, tmp_path, script, *args)

    # every job an application of the master, each given executors on its workers
    state = _master_state(ui)
    ran = [app for app in state["completedapps"] if app["state"] == "FINISHED"]
    assert len(ran) == len(jobs), [(a["name"], a["state"]) for a in state["completedapps"]]
    assert all(app["cores"] >= 1 for app in ran), ran
    assert len(state["workers"]) == 2

    embedded = Lakehouse(str(tmp_path / "embedded-lake"), spark=spark)
    embedded.init()
    embedded.create_views([VIEW])
    embedded.ingest("social", [STREAM])
    for until in UNTIL:
        embedded.slide("active_users", until=until)

    cluster = Lakehouse(home, spark=spark)
    closes = [r.close for r in embedded.history("active_users")]
    assert [r.close for r in cluster.history("active_users")] == closes and len(closes) >= 2
    for close in closes:
        want = Counter(embedded.export("active_users", close=close))
        assert want, f"close {close}: the embedded view is empty"
        assert Counter(cluster.export("active_users", close=close)) == want, f"close {close}"
