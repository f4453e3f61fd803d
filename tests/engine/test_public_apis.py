"""The engine reaches the JVM in three places only, so that it runs on Spark Connect.

A Spark Connect session (Databricks serverless, standard access mode, Databricks Connect,
`reasonlake server`) has no JVM in the Python process: no ``_jvm``, no ``sparkContext``,
no RDDs, no py4j, and Delta's Python builder only where the server has Delta's plugin.
Everything under ``engine/`` goes through the DataFrame and SQL APIs, except the embedded
session's launcher (``store/session.py``, ``store/server.py``) and the classic-only
speed-ups that fall back when the JVM is absent (``store/classic.py``, and
``store/arrow_commit.py``, the driver's commit writer). ``tests/connect`` runs the engine
over a real server.
"""
from __future__ import annotations

import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "src" / "reasonlake" / "engine"
ALLOWED = {"store/session.py", "store/server.py", "store/classic.py", "store/arrow_commit.py"}
# Delta's Python builder (delta.tables.DeltaTable) reaches the JVM; delta-rs's
# (deltalake.DeltaTable, engine/store/driver_reads.py) is a library of its own in the process
JVM = re.compile(r"_jvm\b|_jsparkSession|sparkContext|_jsc\b|_jdf\b|\.rdd\b|\bpy4j\b|delta\.tables|(?<!deltalake\.)DeltaTable\b")


def test_only_the_launcher_and_the_classic_speed_ups_reach_the_jvm():
    reaching = {}
    for file in sorted(ENGINE.rglob("*.py")):
        name = file.relative_to(ENGINE).as_posix()
        lines = [f"{n}: {line.strip()}" for n, line in enumerate(file.read_text().splitlines(), 1)
                 if JVM.search(line) and not line.strip().startswith("#")]
        if lines and name not in ALLOWED:
            reaching[name] = lines
    assert ENGINE.joinpath("store/classic.py").exists()
    assert not reaching, f"modules reaching the JVM outside {sorted(ALLOWED)}: {reaching}"
