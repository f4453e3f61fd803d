"""The engine reaches the JVM in three places only, so that it runs on Spark Connect.

A Spark Connect session (Databricks serverless, standard access mode, Databricks Connect,
`reasonlake server`) has no JVM in the Python process: no ``_jvm``, no ``sparkContext``,
no RDDs, no py4j, and Delta's Python builder only where the server has Delta's plugin.
Everything under ``engine/``, ``spark/`` and the Spark query dialect goes through the
DataFrame and SQL APIs, except the embedded session's launcher (``engine/store/session.py``,
``engine/store/server.py``) and the classic-only speed-ups that fall back when the JVM is
absent (``spark/classic.py``, and ``engine/store/arrow_commit.py``, the driver's commit
writer). ``tests/connect`` runs the engine
over a real server.
"""
from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "reasonlake"
SPARK_SIDE = ("engine", "spark", "query/dialects")  # where Spark may be imported (pyproject's ruff rules)
ALLOWED = {"engine/store/session.py", "engine/store/server.py", "spark/classic.py", "engine/store/arrow_commit.py"}
# Delta's Python builder (delta.tables.DeltaTable) reaches the JVM; delta-rs's
# (deltalake.DeltaTable, engine/store/driver_reads.py) is a library of its own in the process
JVM = re.compile(r"_jvm\b|_jsparkSession|sparkContext|_jsc\b|_jdf\b|\.rdd\b|\bpy4j\b|delta\.tables|(?<!deltalake\.)DeltaTable\b")


def test_only_the_launcher_and_the_classic_speed_ups_reach_the_jvm():
    reaching = {}
    for file in sorted(f for folder in SPARK_SIDE for f in PACKAGE.joinpath(folder).rglob("*.py")):
        name = file.relative_to(PACKAGE).as_posix()
        lines = [f"{n}: {line.strip()}" for n, line in enumerate(file.read_text().splitlines(), 1)
                 if JVM.search(line) and not line.strip().startswith("#")]
        if lines and name not in ALLOWED:
            reaching[name] = lines
    assert all(PACKAGE.joinpath(name).exists() for name in ALLOWED)
    assert not reaching, f"modules reaching the JVM outside {sorted(ALLOWED)}: {reaching}"
