"""Executors in JVMs of their own (``local-cluster``): ``init`` works (no class of the
driver's class path is asked of them), both backends give owlrl's closure, origins
included, at every close of generated owl2rl streams, ingest by URI and the runner give
the tables the driver's reading and `ingest` + `slide` give, and an RSEP-QL query over a
window Spark reads consumes what it matched. A process holds one Spark session,
so the cluster run is a child process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.minutes(5)
def test_local_cluster_views_equal_owlrl_on_both_backends(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REASONLAKE_LOCAL_ROWS", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.cluster_check", "local-cluster[2,1,1024]", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    out = done.stdout
    assert done.returncode == 0, f"{out[-4000:]}\n{done.stderr[-4000:]}"
    assert "executors: 2" in out, out[-2000:]
    for backend in ("driver", "spark"):
        assert out.count(f"{backend} close") >= 8, out[-2000:]
    assert "ingest and runner checked: 0 problems" in out, out[-2000:]
    assert "event patterns checked: 0 problems" in out, out[-2000:]
