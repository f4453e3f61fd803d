"""The OWL 2 RL and RDFS conformance cases of ``../shared/data/conformance``, one test each.

All cases of a profile run through one view (see ``runner``), once per module; each case's
test then reads its verdict. Cases that cannot pass are expected failures with the reason
(``expected_failures``); strict, so a case that starts passing must leave that list, and
only a negative verdict counts as the expected failure (an error of the runner does not).
A positive case's expected failure is per triple: it misses exactly the conclusion triples
``expected_missing.json`` lists and exports nothing unsound, or it fails in earnest
(``runner.assert_as_expected``). The runner's soundness check and that verdict are
themselves tested here on a made-up export, without Spark.
"""
from __future__ import annotations

import pytest

from tests.conformance import runner
from tests.conformance.expected_failures import EXPECTED_FAILURES, EXPECTED_MISSING
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
    # only its CaseFailed counts as an expected failure: not an error of the runner, nor its
    # UnexpectedVerdict (other triples missing than listed, unsound ones exported)
    runner.assert_as_expected(key, verdicts(profile)[key], key in EXPECTED_FAILURES, EXPECTED_MISSING.get(key))


@slow
def test_expected_failures_name_real_cases_with_reasons():
    root = shared_or_skip(*DATA)
    keys = set(runner.case_keys(root))
    stale = sorted(set(EXPECTED_FAILURES) - keys)
    assert not stale, f"expected failures for cases that do not exist: {stale}"
    vague = sorted(k for k, reason in EXPECTED_FAILURES.items() if len(reason.strip()) < 20)
    assert not vague, f"expected failures without a real reason: {vague}"


@slow
def test_expected_missing_triples_are_conclusions_of_positive_expected_failures():
    """Every positive expected failure lists the triples it misses, each one of its conclusion
    triples as ``load_case`` spells them; no other case lists any."""
    root = shared_or_skip(*DATA)
    cases = {key: runner.load_case(folder, profile)
             for profile, folders in runner.case_dirs(root).items() for folder in folders
             for key in [f"{profile}/{folder.name}"] if key in EXPECTED_FAILURES}
    positive = {key for key, case in cases.items() if case.kind == runner.POSITIVE}
    assert sorted(EXPECTED_MISSING) == sorted(positive), (
        f"listed, not a positive expected failure: {sorted(EXPECTED_MISSING.keys() - positive)}; "
        f"a positive expected failure without a list: {sorted(positive - EXPECTED_MISSING.keys())}; {runner.RECORD}")
    strangers = {key: sorted(lines - {runner.nt(t) for t in cases[key].conclusion})
                 for key, lines in EXPECTED_MISSING.items()}
    assert not any(strangers.values()), f"listed, not conclusion triples of the case: { {k: v for k, v in strangers.items() if v} }"
    assert all(EXPECTED_MISSING.values()), "a case listed with no triple missing would pass"


def _made_up_case(kind=runner.POSITIVE, conclusion=None):
    ex, rdf, rdfs = "http://www.example.org#", runner.RDF, runner.RDFS
    premise = ((f"<{ex}c1>", f"<{rdfs}subClassOf>", f"<{ex}c2>"), (f"<{ex}w>", f"<{rdf}type>", f"<{ex}c1>"),
               ("_:b", f"<{ex}p>", f"<{ex}w>"), (f"<{ex}w>", f"<{ex}label>", '"05"^^<http://www.w3.org/2001/XMLSchema#int>'))
    conclusion = conclusion or ((f"<{ex}w>", f"<{rdf}type>", f"<{ex}c2>"),)
    case = runner.Case("owl2rl/made-up", "made-up", "owl2rl", kind, "", premise, conclusion)
    c = runner.prepare(case, 7)
    rename = lambda term: runner.rename_iri(term, 7)  # noqa: E731
    engine_bnode = "<urn:reasonlake:genid:0123456789ab:1:c007x0>"  # how the engine skolemizes _:b
    exported = {
        (rename(f"<{ex}w>"), f"<{rdf}type>", rename(f"<{ex}c1>")),
        (rename(f"<{ex}w>"), f"<{rdf}type>", rename(f"<{ex}c2>")),
        (engine_bnode, rename(f"<{ex}p>"), rename(f"<{ex}w>")),
        (rename(f"<{ex}w>"), rename(f"<{ex}label>"), '"05"^^<http://www.w3.org/2001/XMLSchema#int>'),  # as written
        (runner.rename_iri(f"<{ex}w>", 8), f"<{rdf}type>", f"<{ex}c9>"),  # case 8's: not judged here
    }
    return c, rename, exported


def test_soundness_check_passes_a_sound_export_and_fails_an_extra_triple():
    """The runner's soundness check on a made-up case (no Spark): a sound export passes, with a
    streamed blank node spelled as the engine skolemizes it and a literal as written (not as
    owlrl's closure spells it, "5"); one
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


EX = "http://www.example.org#"
W_C1, W_C2 = ((f"<{EX}w>", runner.TYPE, f"<{EX}{c}>") for c in ("c1", "c2"))  # the case's own terms


def _expected_failure_verdict(exported: set, listed: set, unsound=()) -> None:
    """The made-up case, concluding w a c1 and w a c2, judged on ``exported`` as an expected
    failure listing ``listed`` as missing: what its test would raise."""
    c, _, _ = _made_up_case(conclusion=(W_C1, W_C2))
    outcome = runner.judge(c, runner.EngineRun(exported={c.batch: exported}), set(), list(unsound))
    runner.assert_as_expected("owl2rl/made-up", outcome, True, frozenset(map(runner.nt, listed)))


def _hard_failure(exported: set, listed: set, unsound=()) -> str:
    """The message of the UnexpectedVerdict raised: not a CaseFailed, so ``xfail(raises=CaseFailed)``
    does not take it for the expected failure and the test fails."""
    with pytest.raises(runner.UnexpectedVerdict) as raised:
        _expected_failure_verdict(exported, listed, unsound)
    assert not isinstance(raised.value, runner.CaseFailed)
    return str(raised.value)


def test_an_expected_failure_missing_one_more_triple_fails_hard():
    """Listed as missing w a c2: missing just that is the expected failure; missing w a c1 too,
    or no longer missing w a c2, is a hard failure naming the triple and how to re-record."""
    _, rename, exported = _made_up_case()
    w_c1 = tuple(map(rename, W_C1))
    with pytest.raises(runner.CaseFailed):
        _expected_failure_verdict({w_c1}, {W_C2})

    message = _hard_failure(set(), {W_C2})
    assert f"newly missing: {[runner.nt(W_C1)]}" in message and runner.RECORD in message

    message = _hard_failure({w_c1}, {W_C1, W_C2})
    assert f"listed but now entailed: {[runner.nt(W_C1)]}" in message

    assert "passes now" in _hard_failure(exported, {W_C2})


def test_an_expected_failure_exporting_an_unsound_triple_fails_hard():
    """Missing just the listed w a c2, but with an unsound triple exported: a hard failure naming it."""
    _, rename, _ = _made_up_case()
    w_c1 = tuple(map(rename, W_C1))
    extra = tuple(map(rename, (f"<{EX}w>", runner.TYPE, f"<{EX}c3>")))
    message = _hard_failure({w_c1, extra}, {W_C2}, unsound=[extra])
    assert "unsound" in message and runner.nt(extra) in message


def test_schema_answers_are_the_engines_and_owlrl_judges_them_sound():
    """A schema-level conclusion is looked up in what the engine's compiler entails from the
    case's TBox (scm-sco here), and every schema triple the engine holds must be in owlrl's
    closure of that TBox: one it does not entail is unsound."""
    from reasonlake.vocab import SUB_CLASS_OF

    c, rename, _ = _made_up_case()
    c1, c2, c3 = (rename(f"<{EX}c{k}>") for k in (1, 2, 3))
    c.tbox += [(c2, SUB_CLASS_OF, c3)]
    engine = runner.engine_schema(c, "owl2rl", False)
    assert (c1, SUB_CLASS_OF, c3) in engine  # scm-sco
    assert runner.unsound_schema(c, "owl2rl", engine) == []
    assert runner.unsound_schema(c, "owl2rl", engine | {(c3, SUB_CLASS_OF, c1)}) == [(c3, SUB_CLASS_OF, c1)]
