"""CI's guard that the oracle suites ran (tests/conftest.py, REASONLAKE_ORACLES_REQUIRED): a
suite with no test run, or one skipped or failed, is a gap; an expected failure is a verdict."""
from __future__ import annotations

from tests.conftest import oracle_gaps

SUITE = "tests/engine/test_views_match_owlrl.py::test_driver"


def test_a_suite_that_ran_in_full_leaves_no_gap():
    assert oracle_gaps([SUITE], {f"{SUITE}[rdfs]": "passed", "tests/other.py::t": "skipped"}) == []
    assert oracle_gaps(["tests/conformance/"], {"tests/conformance/x.py::test_case[a]": "xfailed"}) == []


def test_a_suite_not_run_skipped_or_failed_is_a_gap():
    assert oracle_gaps([SUITE], {"tests/other.py::t": "passed"}) == [f"{SUITE}: no test ran"]
    assert oracle_gaps([SUITE], {f"{SUITE}[rdfs]": "passed", f"{SUITE}[owl2rl]": "skipped"}) == [
        f"{SUITE}[owl2rl]: skipped"]
    assert oracle_gaps([SUITE], {f"{SUITE}[rdfs]": "failed"}) == [f"{SUITE}[rdfs]: failed"]
