"""The jobs on a real cluster manager: Spark's standalone master and two workers, started
from the pyspark package (``bin/spark-class``), each job a ``spark-submit`` of ``jobs/*.py``
with the Delta package against the ``spark://`` URL (executors in the workers' JVMs), as a
team's scheduled jobs run on their own cluster. The views it leaves equal an embedded run of
the same commands at every close, and the master lists every job as an application that
ran on its workers."""
from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.standalone import master_state, spark_home, standalone_master

VIEW = REPO / "views" / "active_users.yaml"
STREAM = REPO / "examples" / "streams" / "social.jsonl"
UNTIL = ("2026-11-22T10:05:00Z", "2026-11-22T10:12:00Z")  # two slides: the second expires and renews


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    """(the master's spark:// URL, its web UI port, the environment): a master and two
    workers of one core each, stopped (their process groups) at the end."""
    try:
        with standalone_master(tmp_path_factory.mktemp("standalone")) as found:
            yield found
    except RuntimeError as exc:
        pytest.fail(str(exc))


def _submit(url: str, env: dict, cwd: Path, script: str, *args: str) -> str:
    from importlib.metadata import version

    run = subprocess.run(
        [str(spark_home() / "bin" / "spark-submit"), "--master", url, "--deploy-mode", "client",
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
    state = master_state(ui)
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
