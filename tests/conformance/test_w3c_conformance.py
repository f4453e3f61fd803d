"""The OWL 2 RL and RDFS conformance cases of ``../shared/data/conformance``, one test each.

All cases of a profile run through one view (see ``runner``), once per module; each case's
test then reads its verdict. Cases that cannot pass are expected failures with the reason
(``expected_failures``); strict, so a case that starts passing must leave that list, and
only a negative verdict counts as the expected failure (an error of the runner does not).
The runner's soundness check is itself tested here on a made-up export, without Spark.
"""
from __future__ import annotations

import pytest

from tests.conformance import runner
from tests.conformance.expected_failures import EXPECTED_FAILURES
from tests.conftest import SHARED, shared_or_skip

# One owl2rl view and one rdfs view over every case: about 5 minutes on 2 cores (slow suite).
slow = pytest.mark.slow

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


@slow
@pytest.mark.parametrize("key", _params())
def test_case(key, verdicts):
    shared_or_skip(*DATA)
    profile = key.split("/", 1)[0]
    outcome = verdicts(profile)[key]
    if not outcome.passed:  # only this counts as an expected failure, not an error of the runner
        raise runner.CaseFailed(f"{key} ({outcome.checked_by}): {outcome.detail}")


@slow
def test_expected_failures_name_real_cases_with_reasons():
    root = shared_or_skip(*DATA)
    keys = set(runner.case_keys(root))
    stale = sorted(set(EXPECTED_FAILURES) - keys)
    assert not stale, f"expected failures for cases that do not exist: {stale}"
    vague = sorted(k for k, reason in EXPECTED_FAILURES.items() if len(reason.strip()) < 20)
    assert not vague, f"expected failures without a real reason: {vague}"


def _made_up_case(kind=runner.POSITIVE):
    ex, rdf, rdfs = "http://www.example.org#", runner.RDF, runner.RDFS
    premise = ((f"<{ex}c1>", f"<{rdfs}subClassOf>", f"<{ex}c2>"), (f"<{ex}w>", f"<{rdf}type>", f"<{ex}c1>"),
               ("_:b", f"<{ex}p>", f"<{ex}w>"), (f"<{ex}w>", f"<{ex}label>", '"05"^^<http://www.w3.org/2001/XMLSchema#int>'))
    conclusion = ((f"<{ex}w>", f"<{rdf}type>", f"<{ex}c2>"),)
    case = runner.Case("owl2rl/made-up", "made-up", "owl2rl", kind, "", premise, conclusion)
    c = runner.prepare(case, 7)
    rename = lambda term: runner.rename_iri(term, 7)  # noqa: E731
    engine_bnode = "<urn:reasonlake:genid:0123456789ab:1:c007x0>"  # how the engine skolemizes _:b
    exported = {
        (rename(f"<{ex}w>"), f"<{rdf}type>", rename(f"<{ex}c1>")),
        (rename(f"<{ex}w>"), f"<{rdf}type>", rename(f"<{ex}c2>")),
        (engine_bnode, rename(f"<{ex}p>"), rename(f"<{ex}w>")),
        (rename(f"<{ex}w>"), rename(f"<{ex}label>"), '"5"^^<http://www.w3.org/2001/XMLSchema#int>'),
        (runner.rename_iri(f"<{ex}w>", 8), f"<{rdf}type>", f"<{ex}c9>"),  # case 8's: not judged here
    }
    return c, rename, exported


def test_soundness_check_passes_a_sound_export_and_fails_an_extra_triple():
    """The runner's soundness check on a made-up case (no Spark): a sound export passes, with a
    streamed blank node spelled as the engine skolemizes it and a literal in canonical form; one
    extra triple (not in owlrl's closure of the premises) makes the verdict negative and is named."""
    c, rename, exported = _made_up_case()
    assert runner.sound_in_scope(c)
    closure = runner.premise_closure(c, "owl2rl")
    run = runner.EngineRun(exported={c.batch: exported})
    assert runner.soundness(c, run, closure, alone=False) == []
    assert runner.judge(c, run, set(), []).passed

    extra = (rename("<http://www.example.org#w>"), runner.TYPE, rename("<http://www.example.org#c3>"))
    mixed = (rename("<http://www.example.org#w>"), runner.TYPE, runner.rename_iri("<http://www.example.org#c2>", 8))
    run = runner.EngineRun(exported={c.batch: exported | {extra, mixed}})
    unsound = runner.soundness(c, run, closure, alone=False)
    assert unsound == sorted([extra, mixed])
    outcome = runner.judge(c, run, set(), unsound)
    assert not outcome.passed
    assert "unsound" in outcome.detail and " ".join(extra) in outcome.detail and " ".join(mixed) in outcome.detail

    # vocabulary-only triples count only when the case is alone in its window
    vocabulary = (f"<{runner.OWL}Thing>", f"<{runner.OWL}sameAs>", f"<{runner.OWL}Nothing>")
    run = runner.EngineRun(exported={c.batch: exported | {vocabulary}})
    assert runner.soundness(c, run, closure, alone=False) == []
    assert runner.soundness(c, run, closure, alone=True) == [vocabulary]


def test_soundness_check_leaves_rdflib_literal_canonicalization_alone():
    """owlrl leaves its own lexical conversions in rdflib's table; premise_closure puts it back, so
    the engine (same process) and the runner keep canonicalizing literals as before."""
    from reasonlake.parse.terms import literal_term

    plain = "http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral"
    before = literal_term("abc@de", None, plain)
    c, _, _ = _made_up_case()
    runner.premise_closure(c, "owl2rl")
    assert literal_term("abc@de", None, plain) == before
