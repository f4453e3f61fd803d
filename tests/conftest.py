"""One Spark session for the whole test run; helpers to drive the CLI in-process."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
# a command a test runs with the terminal as its stderr must not start the home's command
# server and leave it running (the tests of that feature ask for it themselves)
os.environ.setdefault("REASONLAKE_SERVER", "off")


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "4g")  # what a user gets
    from reasonlake.engine.store.session import get_spark

    # each test makes its own home: a few table logs kept, not the last hundred
    session = get_spark("local[2]", conf={"spark.databricks.delta.delta.log.cacheSize": "30"})
    session.conf.set("spark.sql.shuffle.partitions", "2")
    yield session
    session.stop()


class CliRunner:
    """Runs `reasonlake --home HOME ...` in this process (sharing the test Spark session)."""

    def __init__(self, home: Path, capsys):
        self.home = home
        self.capsys = capsys

    def __call__(self, *args: str, expect: int = 0) -> str:
        from reasonlake.cli import main

        self.capsys.readouterr()
        code = main(["--home", str(self.home), *args])
        out, err = self.capsys.readouterr()
        assert code == expect, f"exit {code} (wanted {expect})\nstdout:\n{out}\nstderr:\n{err}"
        self.last_err = err
        return out


class ProcessCli:
    """Runs `reasonlake --home HOME ...` in a process of its own (its own Spark and JVM): for
    the longest tests, which should not depend on what the suite's session holds by then."""

    def __init__(self, home: Path, memory: str = "4g"):
        self.home = home
        self.memory = memory

    def __call__(self, *args: str, expect: int = 0) -> str:
        import subprocess
        import sys

        env = {**os.environ, "REASONLAKE_DRIVER_MEMORY": self.memory}
        run = subprocess.run(
            [sys.executable, "-m", "reasonlake.cli", "--home", str(self.home), *args], env=env,
            capture_output=True, text=True)
        assert run.returncode == expect, (
            f"exit {run.returncode} (wanted {expect})\nstdout:\n{run.stdout[-4000:]}\nstderr:\n{run.stderr[-4000:]}")
        self.last_err = run.stderr
        return run.stdout


@pytest.fixture(scope="session")
def initialized_home(spark, tmp_path_factory) -> Path:
    """A home as `reasonlake init` leaves it, made once per run: each `cli` test starts from
    a copy of its folder (a Delta table's log names its files relative to the table, so a
    copied home is a home), not from its own `init`, which runs every migration through
    Spark (about 20 Spark jobs, seconds a test, for some 80 tests). The tests of `init`
    itself run it."""
    from reasonlake.cli import main

    home = tmp_path_factory.mktemp("initialized") / "lake"
    assert main(["--home", str(home), "init"]) == 0  # the CLI hands its leases back at the end
    return home


@pytest.fixture
def cli(initialized_home, tmp_path, capsys):
    import shutil

    shutil.copytree(initialized_home, tmp_path / "lake")
    return CliRunner(tmp_path / "lake", capsys)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def shared_or_skip(*parts: str) -> Path:
    target = SHARED.joinpath(*parts)
    if not target.exists():
        pytest.skip(f"{target} is absent (tests over shared data need ../shared beside the clone)")
    return target


# CI runs the slow suites "when time allows", and on a slow day the default suite's last
# tests too: .ci/run sets this deadline (epoch seconds) so that no test starts after it but
# the oracle suites it requires; those left are skipped with this reason, listed at the end
# of the run (pytest_terminal_summary), and run in full with `bash scripts/test.sh` (`-m slow`).
DEADLINE_ENV = "REASONLAKE_TEST_DEADLINE"
_DEADLINE_SKIPPED = pytest.StashKey[list]()

# Tests run in this order of value, so that a deadline drops the least valuable ones: first
# the oracle suites (the engine against owlrl and Definition 7, the W3C conformance cases,
# the SPARQL answers against rdflib's), then the example job, the suites over Spark Connect,
# crash recovery, the unit tests of the compiler, the parsers and the declarations (seconds
# each), every other test, and the Brick models last (about 18 min). A path prefix relative
# to the repository per rank; within a rank, and among the tests no prefix names, the
# collection order is kept (a stable sort), so a module's tests stay together.
RUN_ORDER = (
    "tests/engine/test_views_match_owlrl.py",
    "tests/engine/test_repair_matches_definition7.py",
    "tests/conformance/",
    "tests/query/test_matches_rdflib.py",
    "tests/test_example_job.py",
    "tests/cli/test_imars_example.py",
    "tests/connect/",
    # the W3C SPARQL cases on Spark (about 3 min in the slow tier) before the kill tests:
    # after them, CI's deadline skipped every one
    "tests/query/test_w3c_sparql.py",
    "tests/query/test_named_graphs.py",
    "tests/cli/test_crash_recovery.py",
    "tests/compile/",
    "tests/parse/",
    "tests/declare/",
    None,  # everything else
    "tests/brick/",
)
_OTHER = RUN_ORDER.index(None)


def run_rank(item) -> int:
    try:
        path = Path(item.path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return _OTHER
    for rank, prefix in enumerate(RUN_ORDER):
        if prefix is not None and path.startswith(prefix):
            return rank
    return _OTHER


def pytest_collection_modifyitems(config, items):
    items.sort(key=run_rank)


# CI's run is to end within the hour with room to spare (a run with the deadline at minute 54
# took 61 min: a test started just before it ran on past the hour). The deadline is at minute
# 50; a test starts only if it would end within 4 minutes after it, counted at N minutes for
# one marked ``minutes(N)`` and at 2 for any other.
AFTER_DEADLINE = 4 * 60
UNMARKED_MINUTES = 2


def pytest_runtest_setup(item):
    deadline = os.environ.get(DEADLINE_ENV)
    if not deadline or _required_oracle(item.nodeid):  # the oracle suites CI requires run whatever the time
        return
    marker = item.get_closest_marker("minutes")
    needs = (marker.args[0] if marker else UNMARKED_MINUTES) * 60
    if time.time() > float(deadline):
        why = "CI time budget spent"
    elif time.time() + needs > float(deadline) + AFTER_DEADLINE:
        why = f"takes about {marker.args[0]} min, more than CI has left"
    else:
        return
    item.config.stash.setdefault(_DEADLINE_SKIPPED, []).append(item.nodeid)
    pytest.skip(f"{why} ({DEADLINE_ENV}); run it with `bash scripts/test.sh -m 'slow or not slow' {item.nodeid}`")


def pytest_report_header(config):
    from tests.engine.packed import SEED

    return f"property seed: {SEED} (REASONLAKE_PROPERTY_SEED)"


def _seed_line(terminalreporter) -> None:
    """After a failure: the seed the generated cases came from and the command that replays
    the failed tests with it (the seed changes each run of scripts/test.sh)."""
    failed = [r.nodeid for key in ("failed", "error") for r in terminalreporter.stats.get(key, [])
              if getattr(r, "nodeid", "")]
    if not failed:
        return
    from tests.engine.packed import SEED

    nodeids = " ".join(f"'{n}'" for n in dict.fromkeys(failed))
    terminalreporter.write_sep("=", "replay")
    terminalreporter.write_line(f"generated cases from seed {SEED}; replay the failed tests with:")
    terminalreporter.write_line(f"  REASONLAKE_PROPERTY_SEED={SEED} bash scripts/test.sh -m 'slow or not slow' {nodeids}")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Under a deadline, list the tests it skipped: after pytest's own summary (the wrapper
    is outermost), just before the closing "N passed, ... in Xs" line."""
    result = yield
    _seed_line(terminalreporter)
    if os.environ.get(DEADLINE_ENV):
        skipped = config.stash.get(_DEADLINE_SKIPPED, [])
        terminalreporter.write_sep("=", f"skipped by the CI deadline ({DEADLINE_ENV})")
        if skipped:
            terminalreporter.write_line(f"skipped by the CI deadline: {len(skipped)} tests:")
            for nodeid in skipped:
                terminalreporter.write_line(f"  {nodeid}")
        else:
            terminalreporter.write_line("skipped by the CI deadline: none")
    return result


# CI fails when an oracle suite did not run, for whatever reason (shared data missing, a
# deadline, a marker that deselected it, an import error): a green run must mean the engine
# was compared with owlrl and Definition 7 (and, in the slow run, the W3C cases). .ci/run
# names the suites each run must hold, as path prefixes (with `::` and a test name where a
# module holds several); each must have at least one test, every one of them passed.
ORACLES_ENV = "REASONLAKE_ORACLES_REQUIRED"
# read once and taken out of the environment: a pytest this run starts in a subprocess (the
# suites over Spark Connect) runs a part of a suite and must not be held to the whole list
_REQUIRED = [p for p in os.environ.pop(ORACLES_ENV, "").split(",") if p]
_OUTCOMES: dict[str, str] = {}  # node id -> its worst outcome (one pytest session per process)
_RAN = ("passed", "xfailed")


def pytest_runtest_logreport(report):
    # a test counts as passed by its call; a skip or failure in its setup counts as well
    # (an expected failure, strict, is the verdict its suite asks for: it counts as run)
    if report.when == "call" or report.outcome != "passed":
        outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        if _OUTCOMES.get(report.nodeid, "passed") in _RAN:
            _OUTCOMES[report.nodeid] = outcome


def _required_oracle(nodeid: str) -> bool:
    return any(nodeid.startswith(p) for p in _REQUIRED)


def oracle_gaps(required: list[str], outcomes: dict[str, str]) -> list[str]:
    """What each required suite lacks: no test of it ran, or one did not pass."""
    gaps = []
    for prefix in required:
        ran = {nodeid: outcome for nodeid, outcome in outcomes.items() if nodeid.startswith(prefix)}
        if not ran:
            gaps.append(f"{prefix}: no test ran")
        gaps += [f"{nodeid}: {outcome}" for nodeid, outcome in ran.items() if outcome not in _RAN]
    return gaps


def pytest_sessionfinish(session, exitstatus):
    required = _REQUIRED
    if not required:
        return
    gaps = oracle_gaps(required, _OUTCOMES)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter:
        reporter.write("\n")  # after the last line of progress dots
    if gaps:
        if reporter:
            reporter.write_sep("=", f"oracle suites that did not run in full ({ORACLES_ENV})")
            for gap in gaps:
                reporter.write_line(gap)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif reporter:
        reporter.write_line(f"oracle suites run in full: {', '.join(required)}")
