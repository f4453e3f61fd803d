"""The OWL 2 RL and RDFS conformance cases of ``../shared/data/conformance``, one test each.

All cases of a profile run through one view (see ``runner``), once per module; each case's
test then reads its verdict. Cases that cannot pass are expected failures with the reason
(``expected_failures``); strict, so a case that starts passing must leave that list, and
only a negative verdict counts as the expected failure (an error of the runner does not).
"""
from __future__ import annotations

import pytest

from tests.conformance import runner
from tests.conformance.expected_failures import EXPECTED_FAILURES
from tests.conftest import SHARED, shared_or_skip

# One owl2rl view and one rdfs view over every case: about 5 minutes on 2 cores (slow suite).
pytestmark = pytest.mark.slow

DATA = ("data", "conformance")
ROOT = SHARED.joinpath(*DATA)


def _params():
    keys = runner.case_keys(ROOT) if ROOT.is_dir() else []
    if not keys:  # no shared data: one test that skips and says why
        return [pytest.param(None, id="shared-data-absent")]
    return [
        pytest.param(key, id=key, marks=pytest.mark.xfail(
            strict=True, raises=runner.CaseFailed, reason=EXPECTED_FAILURES[key]))
        if key in EXPECTED_FAILURES else pytest.param(key, id=key)
        for key in keys
    ]


@pytest.fixture(scope="module")
def verdicts(request, tmp_path_factory):
    """profile folder -> {case key: Outcome}, computed the first time a profile is asked for."""
    shared_or_skip(*DATA)  # before Spark starts
    request.getfixturevalue("spark")  # the session's Spark, which the in-process CLI uses
    work = tmp_path_factory.mktemp("conformance")
    cli = runner.Cli(work / "lake")
    cli("init")
    done: dict[str, dict[str, runner.Outcome]] = {}

    def of(profile: str) -> dict[str, runner.Outcome]:
        if profile not in done:
            done[profile] = runner.run_profile(ROOT, profile, cli, work)
        return done[profile]

    return of


@pytest.mark.parametrize("key", _params())
def test_case(key, verdicts):
    shared_or_skip(*DATA)
    profile = key.split("/", 1)[0]
    outcome = verdicts(profile)[key]
    if not outcome.passed:  # only this counts as an expected failure, not an error of the runner
        raise runner.CaseFailed(f"{key} ({outcome.checked_by}): {outcome.detail}")


def test_expected_failures_name_real_cases_with_reasons():
    root = shared_or_skip(*DATA)
    keys = set(runner.case_keys(root))
    stale = sorted(set(EXPECTED_FAILURES) - keys)
    assert not stale, f"expected failures for cases that do not exist: {stale}"
    vague = sorted(k for k, reason in EXPECTED_FAILURES.items() if len(reason.strip()) < 20)
    assert not vague, f"expected failures without a real reason: {vague}"
