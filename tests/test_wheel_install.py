"""The wheel a cluster installs (decision 0031): built from this tree, installed in a new
virtual environment without extras, it brings neither pyspark nor delta-spark, and what needs
no Spark works there; a Spark command says which extra to install. Under spark-submit, that
install takes the submit's Spark and Delta: no delta-spark package, no local master.

Two installs. The default suite's takes the wheel's dependencies as this environment resolved
them (``installed``: each distribution the wheel's requirements reach without extras,
linked into the new environment, then ``pip check`` there): no network, a few seconds, and a
slow index cannot stall the suite (a run once sat 16 minutes in the install from PyPI). The
spark-submit test installs from PyPI as a cluster does (pip's cache makes a second run
quicker); it skips only when PyPI cannot be reached."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

VIEW = REPO / "views" / "active_users.yaml"
STREAM = REPO / "examples" / "streams" / "social.jsonl"


def _pip(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=timeout)


def _pypi_or_skip() -> None:
    probe = _pip("index", "versions", "pyyaml", "--retries", "0", "--timeout", "15", "--no-input", timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"PyPI cannot be reached (pip index versions pyyaml: {probe.stderr.strip()[-300:]})")


def _built(root: Path) -> Path:
    built = _pip("wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(REPO))
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (root / "dist").glob("reasonlake-*.whl")
    return wheel


def _new_environment(root: Path) -> Path:
    # no pip inside: this interpreter's pip installs into it (`--python`)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=300)
    return root / "venv" / "bin" / "python"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the built wheel, the python of a new environment that has it and the distributions its
    requirements reach without extras, as this environment has them installed)."""
    root = tmp_path_factory.mktemp("wheel")
    wheel, python = _built(root), _new_environment(root)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    entries = {top.name: top for dist in _reached(_requires(wheel)) for top in _top_level(dist)}
    for name, entry in entries.items():
        (site / name).symlink_to(entry)
    done = _pip("--python", str(python), "install", "-q", "--no-deps", "--no-index", "--no-compile", str(wheel))
    assert done.returncode == 0, done.stderr[-3000:]
    checked = _pip("--python", str(python), "check")  # every requirement met by what is there, offline
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-1000:]
    return wheel, python


@pytest.fixture(scope="module")
def installed_from_pypi(tmp_path_factory):
    """(the built wheel, the python of a new environment that pip installed it in from PyPI
    without extras)."""
    _pypi_or_skip()
    root = tmp_path_factory.mktemp("wheel")
    wheel, python = _built(root), _new_environment(root)
    # skipping the bytecode of the ~1 GB of dependencies halves the install
    done = _pip("--python", str(python), "install", "-q", "--no-compile", str(wheel))
    assert done.returncode == 0, done.stderr[-3000:]
    return wheel, python


def _reached(requirements: list[str]) -> list:
    """The installed distributions that ``requirements`` (none of their extras unless named)
    reach, each checked against the version the requirement asks."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: dict[str, metadata.Distribution] = {}
    followed: set[tuple[str, str]] = set()  # (distribution, extra) whose requirements are queued
    todo = [(Requirement(line), "") for line in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        if name not in found:
            dist = metadata.distribution(req.name)
            assert req.specifier.contains(dist.version, prereleases=True), f"{req}: {dist.version} installed here"
            found[name] = dist
        for wanted in {"", *req.extras} - {e for n, e in followed if n == name}:
            followed.add((name, wanted))  # a cycle of requirements is followed once
            todo += [(Requirement(line), wanted) for line in found[name].requires or []]
    return list(found.values())


def _top_level(dist) -> set[Path]:
    """The entries of site-packages a distribution's files are under (not its scripts)."""
    base = Path(dist.locate_file(""))
    return {base / file.parts[0] for file in dist.files or [] if file.parts[0] != ".."}


def _requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # a plain environment: no SPARK_REMOTE or SPARK_HOME of the test run's
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SPARK_", "PYSPARK_"))}
    return subprocess.run([str(python.parent / "reasonlake"), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_base_wheel_brings_no_spark(installed, tmp_path):
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wheel, python = installed
    spark = [req for req in map(Requirement, _requires(wheel)) if canonicalize_name(req.name) in ("pyspark", "delta-spark")]
    extras: dict[str, set[str]] = {}  # the extras that bring each
    for req in spark:
        assert req.marker is not None and not req.marker.evaluate({"extra": ""}), f"unconditional: {req}"
        extras.setdefault(canonicalize_name(req.name), set()).update(
            extra for extra in ("local", "connect", "test", "bench") if req.marker.evaluate({"extra": extra}))
    assert extras == {"pyspark": {"local", "connect"}, "delta-spark": {"local"}}, extras
    for module in ("pyspark", "delta"):
        found = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, text=True)
        assert found.returncode != 0 and "ModuleNotFoundError" in found.stderr, f"{module} is installed"

    helped = _run(python, "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "usage: reasonlake" in helped.stdout and "rules" in helped.stdout

    rules = _run(python, "rules", str(VIEW), cwd=tmp_path)
    assert rules.returncode == 0, rules.stderr
    here = subprocess.run([sys.executable, "-m", "reasonlake.cli", "rules", str(VIEW)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert rules.stdout == here.stdout  # as the development install prints it
    assert "view active_users: profile rdfs-plus" in rules.stdout
    shapes = {line.split()[0]: line.split()[1] for line in rules.stdout.splitlines() if line.startswith("  ")}
    assert shapes["cax-sco"] == "linear" and shapes["prp-trp"] == "transitive", rules.stdout
    assert "ignored axioms: 0" in rules.stdout

    # a command that needs Spark: one line saying what to install, nothing written
    init = _run(python, "--home", str(tmp_path / "lake"), "init", cwd=tmp_path)
    assert init.returncode == 1, init.stderr
    assert init.stderr.startswith("reasonlake: error RL200:") and init.stderr.count("\n") == 1, init.stderr
    assert "pip install 'reasonlake[local]'" in init.stderr
    assert not (tmp_path / "lake").exists()


# The job of a cluster: its driver's Python is the new environment, with pyspark from the
# Spark installation spark-submit runs (as on a cluster) and Delta's jars from --packages.
# Delta's Python package is hidden (a cluster may have the jars only).
_JOB = """
import sys

sys.modules["delta"] = None

from pyspark.sql import SparkSession
from reasonlake.cli import main

home, view, stream = sys.argv[1:4]
for args in (["init"], ["view", "create", view], ["ingest", "social", stream],
             ["slide", "active_users", "--until", "2026-11-22T10:05:00Z"], ["export", "active_users"]):
    code = main(["--home", home, "--quiet", *args])
    if code:
        sys.exit(code)
print("master:", SparkSession.getActiveSession().conf.get("spark.master"))
"""


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.minutes(5)
def test_spark_submit_session_is_the_submits(installed_from_pypi, tmp_path):
    import pyspark

    _, python = installed_from_pypi
    spark_home = Path(pyspark.__file__).parent
    job = tmp_path / "job.py"
    job.write_text(_JOB)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SPARK_", "PYSPARK_"))}
    env.update(SPARK_HOME=str(spark_home), PYSPARK_PYTHON=str(python))
    run = subprocess.run(
        [str(spark_home / "bin" / "spark-submit"), "--master", "local[2]", "--driver-memory", "1g",
         "--packages", f"io.delta:delta-spark_4.2_2.13:{_delta_version()}",
         # a small cluster's settings: two partitions a shuffle and a Delta snapshot (not 200 and 50)
         "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.databricks.delta.snapshotPartitions=2",
         "--conf", "spark.ui.enabled=false",
         str(job), str(tmp_path / "lake"), str(VIEW), str(STREAM)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert "master: local[2]" in run.stdout, run.stdout  # not an embedded local[*] in its place
    assert "view active_users: created" in run.stdout
    # at 10:05 adam created tweet1 and tweet3: an Agent, so an Entity (inferred in two steps)
    for kind in ("social#Agent", "social#Entity"):
        assert ("<http://example.org/people#adam> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                f"<http://example.org/{kind}> .") in run.stdout, run.stdout


def _delta_version() -> str:
    from importlib.metadata import version

    return version("delta-spark")
