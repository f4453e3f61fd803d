"""Records ``expected_missing.json``: for each positive conformance case expected to fail, the
conclusion triples the engine misses (the case's own terms, as N-Triples lines). The conformance
test of such a case fails in earnest when the triples it misses are not exactly these.

Rerun it deliberately, after a change meant to make the engine derive more or less, and
review the file's diff like code (it runs every case, as the conformance suite does):

    REASONLAKE_DRIVER_MEMORY=2g .venv/bin/python -m tests.conformance.record_expected_missing

Exits 1, naming them, when expected failures pass now or export unsound triples: those are
for ``expected_failures.py`` or the engine, not for this file.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from tests.conformance import runner
from tests.conformance.expected_failures import EXPECTED_FAILURES, EXPECTED_MISSING_FILE
from tests.conftest import SHARED

ROOT = SHARED / "data" / "conformance"


def outcomes(root: Path, work: Path) -> dict[str, runner.Outcome]:
    """Every case's verdict, on a Spark session set up as the test suite sets its own up."""
    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "4g")
    from reasonlake.engine.store.session import get_spark

    spark = get_spark("local[2]", conf={"spark.databricks.delta.delta.log.cacheSize": "30"})
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    try:
        cli = runner.Cli(work / "lake")
        cli("init")
        return {key: outcome for profile in runner.case_dirs(root)
                for key, outcome in runner.run_profile(root, profile, cli, work).items()}
    finally:
        spark.stop()


def expected_missing(verdicts: dict[str, runner.Outcome]) -> tuple[dict[str, list[str]], list[str]]:
    """(case key -> the N-Triples lines it misses, for the failing positive expected failures;
    the expected failures that pass or are unsound, each a line saying so)."""
    recorded, problems = {}, []
    for key in sorted(EXPECTED_FAILURES):
        outcome = verdicts.get(key)
        if outcome is None or outcome.missing is None:  # absent from the data, or INCONSISTENCY
            continue
        if outcome.unsound:
            problems.append(f"{key}: unsound: {'; '.join(map(runner.nt, outcome.unsound))}")
        if outcome.passed:
            problems.append(f"{key}: passes now; take it out of EXPECTED_FAILURES")
        else:
            recorded[key] = sorted(map(runner.nt, outcome.missing))
    return recorded, problems


def main() -> int:
    if not ROOT.is_dir():
        print(f"{ROOT} is absent: the conformance cases are needed", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="conformance-record-") as work:
        recorded, problems = expected_missing(outcomes(ROOT, Path(work)))
    EXPECTED_MISSING_FILE.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{EXPECTED_MISSING_FILE}: {len(recorded)} cases, {sum(map(len, recorded.values()))} triples")
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
